"""The OpenAPI 3 description of ``coscore serve`` (``GET /openapi.json``)."""
from __future__ import annotations

from .. import __version__
from ..http.rules import MAX_LISTED
from .endpoints import MAX_CALLS
from .exams import MAX_EXAM_ITEMS, NO_ANSWER

__all__ = ["OPENAPI"]


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _json_body(schema: dict) -> dict:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _ok(description: str, schema: dict) -> dict:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _post(operation_id: str, summary: str, body: dict, responses: dict) -> dict:
    """A POST operation whose request is a JSON object of ``body``'s properties, all required."""
    return {"post": {
        "summary": summary,
        "operationId": operation_id,
        "requestBody": _json_body({"type": "object", "required": list(body), "properties": body}),
        "responses": responses,
    }}


def _get(operation_id: str, summary: str, responses: dict) -> dict:
    return {"get": {"summary": summary, "operationId": operation_id, "responses": responses}}


_ERRORS = {
    "400": _ok("malformed JSON or request (a lone surrogate included)", _ref("Error")),
    "401": _ok("the server has a token and the request does not carry it", _ref("Error")),
    "403": _ok("the request comes from a page of another origin", _ref("Error")),
    "408": _ok("the request body took longer than the body timeout to arrive", _ref("BudgetError")),
    "413": _ok("request body over the limit (budget body), or holding more JSON values than the server takes "
               "(budget json_values)", _ref("BudgetError")),
    "415": _ok("the body is declared as something else than application/json", _ref("Error")),
    "421": _ok("a browser's request naming a Host the server does not answer to", _ref("Error")),
    "422": _ok("invalid rule (with its diagnostics), the request needed more than a worker's memory "
               "budget, or its JSON nests deeper than the server takes (budget json_depth)",
               {"oneOf": [_ref("RuleErrors"), _ref("BudgetError")]}),
    "503": _ok("the request ran past its wall-time budget (budget time), every worker stayed busy "
               "(budget workers), the server holds too many bytes of bodies (budget in_flight), or this "
               "client has too many requests or bytes of bodies open (budgets client_requests, "
               "client_in_flight); retry after Retry-After seconds", _ref("BudgetError")),
}
_NUM = {"type": "number", "nullable": True}
#: the request of the endpoints that take one answer
_ONE_ANSWER = {"rule": _ref("Rule"), "answer": _ref("Answer")}
_FINDINGS = ("what /v1/check finds in the rule: its warnings and the type pass's findings, each with its severity "
             f"(a combo that fails on every answer, such as T(0) > 3, is an error); at most {MAX_LISTED}, errors first")
_OMITTED = {"type": "integer", "description": "how many findings past the first "
            f"{MAX_LISTED} are not listed (only when some are not; /v1/check lists them all)"}

OPENAPI: dict = {
    "openapi": "3.0.3",
    "info": {
        "title": "coscore",
        "version": __version__,
        "description": "Score students' short answers with CoScore rules. Numbers JSON cannot hold "
        "(NaN, ±inf) are null.",
    },
    "paths": {
        "/api/testRule": _post("testRule", "The original CoScore backend's rule test: score one answer",
                               _ONE_ANSWER, {
            "200": _ok("the score and each combo's value, with the original's number types", {
                "type": "object", "properties": {
                    "score": {"type": "number"},
                    "debugInfo": {"type": "object", "additionalProperties": _NUM}}}),
            **_ERRORS,
            "422": _ok("invalid rule (diagnostics), the answer cannot be scored (exception: the "
                       "original engine's exception class, e.g. ZeroDivisionError), or over the memory budget",
                       {"oneOf": [_ref("RuleErrors"), _ref("ScoringError"), _ref("BudgetError")]}),
        }),
        "/v1/score": _post("score", "Score many answers with one rule", {
            "rule": _ref("Rule"), "answers": {"type": "array", "items": _ref("Answer")}}, {
            "200": _ok("results aligned with the answers; a failed answer has a null score and its "
                       "message in errors", {"type": "object", "properties": {
                           "scores": {"type": "array", "items": _NUM},
                           "combos": {"type": "object", "additionalProperties": {
                               "type": "array", "items": _NUM}},
                           "errors": {"type": "array", "items": {"type": "string", "nullable": True}},
                           "warnings": {"type": "array", "items": _ref("Diagnostic"),
                                        "description": _FINDINGS},
                           "warningsOmitted": _OMITTED}}),
            **_ERRORS,
            "422": _ok("invalid rule (diagnostics), over the memory budget, or an answer over the response "
                       "budget (answers x (combos + 1) numbers; budget response)",
                       {"oneOf": [_ref("RuleErrors"), _ref("BudgetError")]}),
        }),
        "/v1/check": _post("check", "Check a rule as coscore check does: its errors and warnings, the type "
                           "pass's included", {"rule": _ref("Rule")}, {
            "200": _ok("valid is false when the rule has errors", {"type": "object", "properties": {
                "valid": {"type": "boolean"},
                "diagnostics": {"type": "array", "items": _ref("Diagnostic")},
                "combos": {"type": "array", "items": {"type": "string"}}}}),
            **{code: _ERRORS[code] for code in ("400", "401", "403", "408", "413", "415", "421", "503")},
            "422": _ok("over the memory budget", _ref("BudgetError")),
        }),
        "/v1/explain": _post("explain", "Score one answer and show every atom call with its evidence",
                             _ONE_ANSWER, {
            "200": _ok("the outcome and the atom calls in evaluation order", {
                "type": "object", "properties": {
                    "score": _NUM,
                    "error": {"type": "string", "nullable": True},
                    "combos": {"type": "object", "additionalProperties": _NUM},
                    "calls": {"type": "array", "items": {"type": "object", "properties": {
                        "combo": {"type": "string"}, "op": {"type": "string", "enum": ["G", "M"]},
                        "atom": {"type": "string"}, "kind": {"type": "string"},
                        "text": {"type": "string"}, "hit": {"type": "boolean"}, "value": _NUM,
                        "evidence": {"type": "object", "nullable": True}}}},
                    "callsOmitted": {"type": "integer", "description": f"calls after the first {MAX_CALLS}"},
                    "warnings": {"type": "array", "items": _ref("Diagnostic"), "description": _FINDINGS},
                    "warningsOmitted": _OMITTED}}),
            **_ERRORS,
        }),
        "/v1/exam/score": _post("examScore", "Score students' papers with an exam: each item by its own rule",
                                {"exam": _ref("Exam"), "papers": {"type": "array", "items": _ref("Paper")}}, {
            "200": _ok("each paper's results, aligned with the papers: per item what /v1/score gives for its "
                       "answer, and the weighted total", {"type": "object", "properties": {
                           "papers": {"type": "array", "items": {
                               "type": "object", "description": "item name → its result, then total",
                               "properties": {"total": {**_NUM, "description": "sum of weight x score over the "
                                                        "exam's items; null when an item failed or has no answer"}},
                               "additionalProperties": _ref("ItemResult")}},
                           "warnings": {"type": "object", "description": "item name → what /v1/check finds in its rule",
                                        "additionalProperties": {"type": "array", "items": _ref("Diagnostic")}},
                           "warningsOmitted": {"type": "object", "description": "item name → findings not listed "
                                               f"past the first {MAX_LISTED} (only items that have more)",
                                               "additionalProperties": {"type": "integer"}}}}),
            **_ERRORS,
            "400": _ok("malformed JSON or request: papers not an array of objects, or a paper naming something "
                       "that is not an item of the exam", _ref("Error")),
            "422": _ok(f"invalid exam (every problem, its rules' diagnostics included; a rule given as a path is "
                       f"one), more than {MAX_EXAM_ITEMS} items (budget exam_items), an answer over the response "
                       "budget (papers x the sum over items of (combos + 2) numbers; budget response), or over the "
                       "memory budget", {"oneOf": [_ref("ExamErrors"), _ref("BudgetError")]}),
            "503": _ok("the request ran past its wall-time budget, the per-request timeout times the exam's "
                       "number of items (budget time), every worker stayed busy (budget workers), or the server "
                       "holds too many bytes of bodies (budget in_flight)", _ref("BudgetError")),
        }),
        "/healthz": _get("health", "Liveness, worker and cache statistics (never waits for a worker)", {
            "200": _ok("the service is up", {"type": "object", "properties": {
                "status": {"type": "string"}, "version": {"type": "string"},
                "uptime": {"type": "number"}, "cache": {"type": "object"}, "workers": {"type": "object"}}})}),
        "/readyz": _get("ready", "Readiness: 200 once the worker processes have warmed up and one is ready, "
                        "else 503 (with Retry-After)", {
            "200": _ok("ready", {"type": "object", "properties": {
                "status": {"type": "string"}, "workers": {"type": "object"}}}),
            "503": {"description": "the workers are still starting (status 'starting') or none is ready"}}),
        "/openapi.json": _get("openapi", "This description", {"200": {"description": "the OpenAPI document"}}),
    },
    "components": {"schemas": {
        "Rule": {
            "type": "object", "description": "A CoScore rule (also accepted as JSON text)",
            "required": ["atoms", "combos", "comboMode"],
            "properties": {
                "atoms": {"type": "object", "additionalProperties": {"type": "object", "properties": {
                    "type": {"type": "string", "enum": ["EM", "SM", "OP", "CS"]}, "desc": {"type": "string"}}}},
                "combos": {"type": "object", "additionalProperties": {"type": "object", "properties": {
                    "combo": {"type": "string"}, "score": {"type": "number"},
                    "mode": {"type": "string", "enum": ["logic", "value"]}}}},
                "comboMode": {"type": "string", "enum": ["ADD", "MAX"]},
                "dialect": {"type": "string", "enum": ["coscore", "manual"]},
            },
        },
        "Answer": {"description": "the blanks of one answer (one string for a one-blank answer)",
                   "oneOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]},
        "Diagnostic": {"type": "object", "properties": {
            "path": {"type": "string", "example": "combos.A.combo"}, "message": {"type": "string"},
            "column": {"type": "integer", "nullable": True},
            "severity": {"type": "string", "enum": ["error", "warning"]}}},
        "Error": {"type": "object", "properties": {"error": {"type": "string"}}},
        "BudgetError": {"type": "object", "properties": {
            "error": {"type": "string"},
            "budget": {"type": "string", "enum": ["time", "memory", "workers", "body", "body_timeout", "in_flight",
                                                  "response", "exam_items", "client_requests", "client_in_flight",
                                                  "json_values", "json_depth"]},
            "limit": {"type": "number", "description": "the budget: seconds, bytes, workers, items, requests, "
                                                      "values or levels"}}},
        "RuleErrors": {"type": "object", "properties": {
            "error": {"type": "string", "example": "invalid rule"},
            "diagnostics": {"type": "array", "items": _ref("Diagnostic")}}},
        "Exam": {
            "type": "object", "description": "An exam as an exam file holds it (docs/exams.md), every rule inline; "
            "item_column (the long layout) and id are accepted and play no part here",
            "required": ["items"],
            "properties": {
                "name": {"type": "string"}, "id": {"type": "string"}, "item_column": {"type": "string"},
                "items": {"type": "array", "minItems": 1, "maxItems": MAX_EXAM_ITEMS, "items": {
                    "type": "object", "required": ["name", "rule", "blanks"], "properties": {
                        "name": {"type": "string", "description": "unique; not total"},
                        "rule": _ref("Rule"),
                        "blanks": {"type": "array", "minItems": 1, "items": {"type": "string"},
                                   "description": "as many columns as the rule reads (their names play no part)"},
                        "label": {"type": "string"}, "label2": {"type": "string"},
                        "weight": {"type": "number", "minimum": 0, "default": 1}}}},
            },
        },
        "Paper": {"type": "object", "description": "one student's answers: item name → that item's answer",
                  "additionalProperties": _ref("Answer")},
        "ItemResult": {"type": "object", "properties": {
            "score": _NUM,
            "combos": {"type": "object", "additionalProperties": _NUM},
            "error": {"type": "string", "nullable": True,
                      "description": f"why the answer failed, or {NO_ANSWER!r}"}}},
        "ExamProblem": {"type": "object", "properties": {
            "where": {"type": "string", "example": "items[1] (q2).rule"}, "message": {"type": "string"},
            "line": {"type": "integer", "nullable": True},
            "severity": {"type": "string", "enum": ["error", "warning"]}}},
        "ExamErrors": {"type": "object", "properties": {
            "error": {"type": "string", "example": "invalid exam"},
            "problems": {"type": "array", "items": _ref("ExamProblem")}}},
        "ScoringError": {"type": "object", "properties": {
            "error": {"type": "string", "example": "combos.B: division by zero"},
            "exception": {"type": "string", "example": "ZeroDivisionError"}}},
    }},
}
