"""The book's one error type."""


class BookError(RuntimeError):
    """A notebook failed, or the manifest / a parameter file is wrong."""
