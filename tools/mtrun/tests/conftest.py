"""The tool's tests share the project's fixtures (``tests/conftest.py``): an isolated cache, offline, tiny models."""

from tests.conftest import _isolated_environment, smoke_runs, tiny_bert_dir, tiny_roberta_nli_dir  # noqa: F401
