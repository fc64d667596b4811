from rest_framework.authentication import TokenAuthentication


class BearerTokenAuthentication(TokenAuthentication):
    """DRF's token authentication, with the `Bearer` keyword the spec uses."""
    keyword = 'Bearer'
