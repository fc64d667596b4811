"""A lab API on Django REST Framework with its defaults, for Lab Data's tests (see serve.py)."""
