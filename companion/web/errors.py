"""Errors as the API answers them: a status and one line of JSON, `{"error": "..."}`, and nothing changed (409 for
a request that does not fit the table now, such as calibrating a grid the table does not have)."""

from __future__ import annotations

from flask import Flask, Response, jsonify
from werkzeug.exceptions import HTTPException

from companion.codec import CodecError
from companion.errors import UserError
from companion.rules import IllegalAction
from companion.table.steps import NotNow


class BadInput(Exception):
    """A request the companion will not carry out; `status` is 400 unless said otherwise."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def error_response(message: str, status: int) -> tuple[Response, int]:
    return jsonify(error=one_line(message)), status


def install(app: Flask) -> None:
    @app.errorhandler(BadInput)
    def bad_input(error: BadInput) -> tuple[Response, int]:
        return error_response(error.message, error.status)

    @app.errorhandler(IllegalAction)
    def illegal(error: IllegalAction) -> tuple[Response, int]:
        from companion.web.context import table  # the app's table: this module is imported before it exists

        return error_response(table().words().places(error.reason), 400)  # sites by the names the board gives them

    @app.errorhandler(NotNow)
    def not_now(error: NotNow) -> tuple[Response, int]:
        return error_response(str(error), 409)

    @app.errorhandler(CodecError)
    @app.errorhandler(UserError)
    def user_error(error: Exception) -> tuple[Response, int]:
        return error_response(str(error), 400)

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> tuple[Response, int]:
        return error_response(error.description or error.name, error.code or 500)
