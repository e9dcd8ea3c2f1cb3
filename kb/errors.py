"""Errors of the machinery. "No match" or "not reproduced" are values, never exceptions.

Each class has a stable `code` and an HTTP `status`; its message is written for the user and says what to do next.
"""


class KBError(Exception):
    code = "kb_error"
    status = 500

    @property
    def user_message(self) -> str:
        return str(self)


class BadInput(KBError):
    code = "bad_input"
    status = 400


class IndexNotFound(KBError):
    code = "index_not_found"
    status = 503


class IndexIncompatible(KBError):
    code = "index_incompatible"
    status = 503


class IndexCorrupt(KBError):
    code = "index_corrupt"
    status = 503


class ModelUnavailable(KBError):
    code = "model_unavailable"
    status = 503


class ConfigError(KBError):
    code = "config_error"
    status = 500
