"""The production deployment files say only what the server understands: every PLANRAG_…
variable in deploy/docker-compose.yml and deploy/Dockerfile is a real setting, the commands
the services run are real CLI commands and options, and every long-running service has a health
check and its data on a volume. (No Docker engine runs here: the images are not built in tests.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from planrag.cli.main import app
from planrag.core.settings import Settings
from tests.core.test_settings import env_names

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = yaml.safe_load((ROOT / "deploy" / "docker-compose.yml").read_text())
DOCKERFILE = (ROOT / "deploy" / "Dockerfile").read_text()


def planrag_services() -> dict[str, dict]:
    return {
        name: service
        for name, service in COMPOSE["services"].items()
        if service.get("image", "").startswith("planrag") or "build" in service
    }


def test_compose_and_dockerfile_use_only_real_settings() -> None:
    known = env_names(Settings)
    used = set()
    for service in planrag_services().values():
        used |= {name for name in service["environment"] if name.startswith("PLANRAG_")}
    used |= set(re.findall(r"\b(PLANRAG_[A-Z0-9_]+)=", DOCKERFILE))
    assert used, "no settings found"
    assert used <= known, sorted(used - known)
    # the shared stores a multi-process deployment needs are all set
    compose_env = next(iter(planrag_services().values()))["environment"]
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        **{
            "ingest": {"queue": "database"},
            "milvus": {"uri": compose_env["PLANRAG_MILVUS__URI"]},
            "db": {"url": compose_env["PLANRAG_DB__URL"]},
            "pg": {"url": compose_env["PLANRAG_PG__URL"]},
        },
    )
    assert settings.multi_process_problems() == []
    assert compose_env["PLANRAG_INGEST__QUEUE"] == "database"


@pytest.mark.parametrize("name", sorted(planrag_services()))
def test_service_commands_are_real_cli_commands(name: str) -> None:
    command = planrag_services()[name]["command"]
    result = CliRunner().invoke(app, [*command, "--help"])
    assert result.exit_code == 0, result.output
    for option in (part for part in command if part.startswith("--")):
        assert option in result.output, f"{name}: {option} is not an option of {command[0]}"


def test_dockerfile_entry_point_is_the_cli() -> None:
    assert 'ENTRYPOINT ["planrag"]' in DOCKERFILE
    assert 'CMD ["serve"]' in DOCKERFILE
    assert re.search(r"^USER planrag$", DOCKERFILE, flags=re.MULTILINE)  # not root
    assert "download.pytorch.org/whl/cpu" in DOCKERFILE  # never the CUDA build
    assert "/readyz" in DOCKERFILE


def test_every_service_has_a_health_check_and_volumes_are_declared() -> None:
    declared = set(COMPOSE["volumes"])
    for name, service in COMPOSE["services"].items():
        if name != "worker":  # workers have no port; the supervisor restarts them
            assert "healthcheck" in service, name
        for volume in service.get("volumes", []):
            assert volume.split(":")[0] in declared, (name, volume)
