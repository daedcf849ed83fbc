"""The page's QR encoder (capicua/web/js/qr.js, "Llévate tu jugador") against a known-good
one: the `qrcode` package's modules for the same bytes, level M, version and mask, for
every mask and texts from version 1 to 10 (7 and up carry version information), and the
smallest version that holds each length. Node runs the module as the browser would."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import qrcode
import qrcode.util

QR_JS = Path(__file__).resolve().parents[2] / "capicua" / "web" / "js" / "qr.js"
TEXTS = [
    "a",
    "https://capicua.example/llevar#AbCdEfGhIjKlMnOpQrStUvWx",  # a key's link: version 4
    "http://192.168.1.20:8000/llevar#Zm9vYmFyYmF6cXV4cXV1eDEyMzQ1Njc4OTA",
    "Capicúa, la ñ y el dominó " * 3,  # UTF-8 beyond ASCII
    "x" * 122,  # version 7
    "y" * 213,  # the most version 10 holds
]
RUN = """
import { qrMatrix, versionFor } from %s;
const texts = %s;
const out = { cases: [], versions: [] };
for (const text of texts) {
  for (let mask = 0; mask < 8; mask++) {
    const q = qrMatrix(text, { mask });
    out.cases.push({ text, mask, version: q.version, rows: q.modules.map((r) => r.map((d) => (d ? 1 : 0)).join('')) });
  }
  const auto = qrMatrix(text);
  out.cases.push({ text, mask: auto.mask, version: auto.version, rows: auto.modules.map((r) => r.map((d) => (d ? 1 : 0)).join('')) });
}
for (let n = 1; n <= 214; n++) out.versions.push(versionFor(n));
console.log(JSON.stringify(out));
"""


def reference(data: bytes, mask: int, version: int | None) -> tuple[int, list[str]]:
    q = qrcode.QRCode(version=version, error_correction=qrcode.constants.ERROR_CORRECT_M, border=0, mask_pattern=mask)
    q.add_data(qrcode.util.QRData(data, mode=qrcode.util.MODE_8BIT_BYTE))
    q.make(fit=version is None)
    assert q.version is not None
    return q.version, ["".join("1" if dark else "0" for dark in row) for row in q.get_matrix()]


def test_the_page_draws_the_modules_a_known_good_encoder_draws() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    script = RUN % (json.dumps(QR_JS.as_uri()), json.dumps(TEXTS))
    ran = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    got = json.loads(ran.stdout)
    assert len(got["cases"]) == 9 * len(TEXTS)
    for case in got["cases"]:
        version, rows = reference(case["text"].encode(), case["mask"], None)
        assert case["version"] == version, (case["text"], case["mask"])
        assert case["rows"] == rows, (case["text"], case["mask"])
    assert {c["version"] for c in got["cases"]} >= {1, 4, 7, 10}
    # The smallest version for each length, and none past version 10's 213 bytes.
    assert got["versions"] == [reference(b"a" * n, 0, None)[0] for n in range(1, 214)] + [0]
