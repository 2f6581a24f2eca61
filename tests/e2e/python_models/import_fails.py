import torch  # noqa: F401
import a_package_that_is_not_installed  # noqa: F401


def make():
    return None
