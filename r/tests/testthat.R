library(testthat)
library(labdata)

test_check("labdata")
