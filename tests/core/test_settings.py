"""Settings: env prefix and nesting, and `.env.example` lists every setting."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel

from planrag.core.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


def env_names(model: type[BaseModel], prefix: str = "PLANRAG_") -> set[str]:
    names = set()
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            names |= env_names(annotation, f"{prefix}{name.upper()}__")
        else:
            names.add(f"{prefix}{name.upper()}")
    return names


def test_env_example_lists_every_setting_and_nothing_else() -> None:
    text = (ROOT / ".env.example").read_text()
    listed = set(re.findall(r"^(PLANRAG_[A-Z0-9_]+)=", text, flags=re.MULTILINE))
    assert listed == env_names(Settings)


def test_env_example_values_are_the_defaults() -> None:
    from_example = Settings(_env_file=str(ROOT / ".env.example"))  # type: ignore[call-arg]
    assert from_example.model_dump() == Settings(_env_file=None).model_dump()  # type: ignore[call-arg]


def test_nested_environment_variables(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PLANRAG_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("PLANRAG_INGEST__MAX_UPLOAD_MB", "2")
    monkeypatch.setenv("PLANRAG_MILVUS__INDEX_TYPE", "FLAT")
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.max_upload_bytes == 2 * 1024 * 1024
    assert settings.milvus.index_type == "FLAT"
    assert settings.database_url == f"sqlite:///{tmp_path.resolve() / 'planrag.db'}"
    assert settings.milvus_uri == str(tmp_path.resolve() / "milvus.db")
