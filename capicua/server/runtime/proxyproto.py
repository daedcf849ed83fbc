"""The PROXY protocol (HAProxy's ``send-proxy`` / ``send-proxy-v2``): the first bytes a
load balancer sends on a connection name the client it carries.

Read only on connections from the trusted proxies (``--trusted-proxies``), and only
when they begin with the protocol's signature: a balancer in HTTP mode may send
``X-Forwarded-For`` instead (both are read, PROXY first). Anyone else's connection is
plain HTTP, so a client cannot name itself by sending a PROXY line (its request is
answered 400 by the HTTP parser). The spec: https://www.haproxy.org/download/2.8/doc/proxy-protocol.txt
"""

from __future__ import annotations

import ipaddress
import struct

V1_PREFIX = b"PROXY "
V1_MAX = 107  # the longest v1 line, CRLF included (the spec's bound)
V2_SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"
V2_MAX = 16 + 536  # the fixed header and the largest address block with TLVs a proxy sends us


class ProxyHeaderError(ValueError):
    """The connection began as a PROXY header but is not a valid one."""


def starts_proxy_header(data: bytes) -> bool:
    """Whether ``data`` (the connection's first bytes, maybe only some) can begin a PROXY header."""
    head = data[: len(V2_SIGNATURE)]
    return V2_SIGNATURE.startswith(head) or V1_PREFIX.startswith(head[: len(V1_PREFIX)])


def parse(data: bytes) -> tuple[str | None, int] | None:
    """``(client address, header length)`` of the PROXY header ``data`` begins with;
    the address is None for a LOCAL / UNKNOWN connection (the proxy's own: its health
    checks). None: more bytes are needed. Raises :class:`ProxyHeaderError`."""
    if data[:1] == b"P":
        return _parse_v1(data)
    return _parse_v2(data)


def _parse_v1(data: bytes) -> tuple[str | None, int] | None:
    end = data.find(b"\r\n", 0, V1_MAX)
    if end < 0:
        if len(data) >= V1_MAX:
            raise ProxyHeaderError("a PROXY v1 line longer than 107 bytes")
        return None
    parts = data[:end].decode("ascii", "replace").split(" ")
    if parts[0] != "PROXY" or len(parts) < 2:
        raise ProxyHeaderError("not a PROXY v1 line")
    if parts[1] == "UNKNOWN":
        return None, end + 2
    if parts[1] not in ("TCP4", "TCP6") or len(parts) != 6:
        raise ProxyHeaderError("a PROXY v1 line is PROXY TCP4|TCP6 SRC DST SPORT DPORT")
    try:
        source = ipaddress.ip_address(parts[2])
        ports = [int(parts[4]), int(parts[5])]
    except ValueError:
        raise ProxyHeaderError("a PROXY v1 line with a bad address or port") from None
    if source.version != (4 if parts[1] == "TCP4" else 6) or not all(0 <= p <= 65535 for p in ports):
        raise ProxyHeaderError("a PROXY v1 line with a bad address or port")
    return str(source), end + 2


def _parse_v2(data: bytes) -> tuple[str | None, int] | None:
    if len(data) < 16:
        if not V2_SIGNATURE.startswith(data[: len(V2_SIGNATURE)]):
            raise ProxyHeaderError("not a PROXY header")
        return None
    if data[:12] != V2_SIGNATURE:
        raise ProxyHeaderError("not a PROXY header")
    version_command, family, length = data[12], data[13], struct.unpack("!H", data[14:16])[0]
    if version_command >> 4 != 2 or version_command & 0x0F not in (0, 1):
        raise ProxyHeaderError("a PROXY v2 header of an unknown version or command")
    if 16 + length > V2_MAX:
        raise ProxyHeaderError("a PROXY v2 header too long")
    if len(data) < 16 + length:
        return None
    block = data[16:16 + length]
    if version_command & 0x0F == 0:  # LOCAL: the proxy's own connection
        return None, 16 + length
    if family >> 4 == 1 and len(block) >= 12:  # AF_INET
        return str(ipaddress.IPv4Address(block[:4])), 16 + length
    if family >> 4 == 2 and len(block) >= 36:  # AF_INET6
        return str(ipaddress.IPv6Address(block[:16])), 16 + length
    return None, 16 + length  # AF_UNSPEC / AF_UNIX: no address to count on
