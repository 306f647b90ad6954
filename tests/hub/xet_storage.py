"""The Xet storage (CAS server) behind the test Hub, on 127.0.0.1: the routes hf_xet calls to
upload and to download a file, with the bytes it sends parsed and counted.

Upload: ``POST /v1/xorbs/default/<hash>`` (a xorb: chunks, each an 8-byte header and its bytes,
stored as sent, LZ4 or byte-grouped LZ4 or raw), ``POST /v2/shards`` (a shard: for each file the
xorb chunk ranges that make it and its sha256; for each xorb its chunk hashes; answered with
NDJSON progress frames, as the Hub's storage does, and v1's single JSON answer at
``/v1/shards``), and the global dedup query ``GET /v1/chunks/default/<chunk hash>`` (a shard with
the xorb that holds the chunk, or 404). The xorb grant routes answer 404, as a storage without
them does: hf_xet then posts each xorb itself.

Download: ``GET /v1/reconstructions/<file hash>`` (the file's terms and, per xorb, a URL and the
byte range to fetch) and that URL (``/xorb/<hash>``, answering a ``Range``). The v2 route answers
404: hf_xet falls back to v1.

Every request is checked against the access token the Hub handed out. ``file_bytes`` rebuilds a
file from the chunks it was sent in, so the test Hub commits the bytes hf_xet uploaded.
"""

from __future__ import annotations

import itertools
import json
import re
import struct
import time
from dataclasses import dataclass

from tests.hub.server import RawFile, Request, Server

_INSTANCES = itertools.count(1)

XET_TOKEN = "xet-test-access-token"
_SHARD_TAG = b"HFRepoMetaData\x00\x55\x69\x67\x45\x6a\x7b\x81\x57\x83\xa5\xbd\xd9\x5c\xcd\xd1\x4a\xa9"
_SHARD_HEADER = 48  # tag (32), version, footer size
_ENTRY = 48  # every file and xorb section entry: a hash and four u32 (or a hash and 16 bytes)
_BOOKEND = b"\xff" * 32
_FOOTER = 200  # bytes of a shard's footer
_FILE_WITH_VERIFICATION, _FILE_WITH_METADATA = 1 << 31, 1 << 30


def hash_hex(raw: bytes) -> str:
    """A Xet hash as its clients print it: four little-endian u64, each as 16 hex digits."""
    return "".join(f"{v:016x}" for v in struct.unpack("<4Q", raw))


def lz4_frame_decompress(data: bytes) -> bytes:
    """An LZ4 frame (the format hf_xet compresses chunks with), decompressed by the lz4 package."""
    import lz4.frame

    return lz4.frame.decompress(data)


def _bg4_regroup(data: bytes) -> bytes:
    n = len(data)
    split, rem = divmod(n, 4)
    sizes = [split + (1 if g < rem else 0) for g in range(4)]
    out = bytearray(n)
    pos = 0
    for g, size in enumerate(sizes):
        out[g::4] = data[pos:pos + size]
        pos += size
    return bytes(out)


def xorb_chunks(data: bytes) -> tuple[list[bytes], list[int]]:
    """A xorb's chunks, decompressed, and the byte offset where each starts (and where the last ends)."""
    chunks, offsets, pos = [], [], 0
    while pos + 8 <= len(data) and data[pos] == 0:  # version 0; the footer starts with its ident
        size = int.from_bytes(data[pos + 1:pos + 4], "little")
        scheme = data[pos + 4]
        length = int.from_bytes(data[pos + 5:pos + 8], "little")
        body = data[pos + 8:pos + 8 + size]
        chunk = body if scheme == 0 else lz4_frame_decompress(body) if scheme == 1 else _bg4_regroup(lz4_frame_decompress(body))
        if scheme not in (0, 1, 2) or len(chunk) != length:
            raise ValueError(f"xorb chunk at {pos}: scheme {scheme}, {len(chunk)} bytes for {length}")
        offsets.append(pos)
        chunks.append(chunk)
        pos += 8 + size
    offsets.append(pos)
    return chunks, offsets


@dataclass
class FileEntry:
    segments: list[tuple[str, int, int, int]]  # (xorb hash, unpacked bytes, first chunk, end chunk)
    sha256: str | None


def parse_shard(data: bytes) -> tuple[dict[str, FileEntry], dict[str, tuple[list[str], bytes]]]:
    """A shard's files, and for each of its xorbs the hashes of its chunks (in their order) and
    its entries as they are (a header entry, then one entry per chunk)."""
    if not data.startswith(_SHARD_TAG):
        raise ValueError("no shard header")
    files, pos = {}, _SHARD_HEADER  # the file section follows the header; the xorb section follows it
    while data[pos:pos + 32] != _BOOKEND:
        file_hash = hash_hex(data[pos:pos + 32])
        flags, count = struct.unpack_from("<II", data, pos + 32)
        pos += _ENTRY
        segments = []
        for _ in range(count):
            segments.append((hash_hex(data[pos:pos + 32]), *struct.unpack_from("<III", data, pos + 36)))
            pos += _ENTRY
        if flags & _FILE_WITH_VERIFICATION:
            pos += _ENTRY * count
        sha256 = None
        if flags & _FILE_WITH_METADATA:
            sha256 = hash_hex(data[pos:pos + 32])  # stored as a Xet hash is
            pos += _ENTRY
        files[file_hash] = FileEntry(segments, sha256)
    xorbs, pos = {}, pos + _ENTRY
    while data[pos:pos + 32] != _BOOKEND:
        xorb_hash = hash_hex(data[pos:pos + 32])
        (count,) = struct.unpack_from("<I", data, pos + 36)
        pos += _ENTRY
        hashes = [hash_hex(data[pos + _ENTRY * k:pos + _ENTRY * k + 32]) for k in range(count)]
        xorbs[xorb_hash] = hashes, data[pos - _ENTRY:pos + _ENTRY * count]
        pos += _ENTRY * count
    return files, xorbs


def dedup_shard(sections: list[bytes]) -> bytes:
    """The answer to a global dedup query: a shard of these xorb sections (no files), with the
    lookup tables and the footer that a shard read from the storage has, valid for an hour."""
    body = bytearray(_SHARD_TAG + struct.pack("<QQ", 2, _FOOTER))
    file_info = len(body)
    body += _BOOKEND + bytes(_ENTRY - 32)
    xorb_info = len(body)
    xorb_keys, chunk_keys, index = [], [], 0
    for section in sections:
        xorb_keys.append((struct.unpack_from("<Q", section, 0)[0], index))
        for k in range(len(section) // _ENTRY - 1):
            chunk_keys.append((struct.unpack_from("<Q", section, _ENTRY * (k + 1))[0], index, k))
        body += section
        index += len(section) // _ENTRY
    body += _BOOKEND + bytes(_ENTRY - 32)
    file_lookup = len(body)
    xorb_lookup = len(body)
    for key, i in sorted(xorb_keys):
        body += struct.pack("<QI", key, i)
    chunk_lookup = len(body)
    for key, i, k in sorted(chunk_keys):
        body += struct.pack("<QII", key, i, k)
    footer = struct.pack("<9Q", 1, file_info, xorb_info, file_lookup, 0, xorb_lookup, len(xorb_keys), chunk_lookup,
                         len(chunk_keys))
    footer += bytes(32) + struct.pack("<QQ", int(time.time()), int(time.time()) + 3600) + bytes(48)
    footer += struct.pack("<4Q", 0, 0, 0, len(body))
    assert len(footer) == _FOOTER
    return bytes(body + footer)


class Storage(Server):
    """What the storage holds, filled by uploads."""

    def __init__(self):
        # hf_xet keeps a cache of the chunks it uploaded per storage endpoint, for as long as its
        # process lives: a later test's storage on a port an earlier one used would be taken for
        # it, and hf_xet would send shards naming xorbs this storage never received
        super().__init__(prefix=f"/storage-{next(_INSTANCES)}")
        self.xorbs: dict[str, bytes] = {}  # hash -> bytes as sent
        self.chunks: dict[str, tuple[list[bytes], list[int]]] = {}  # hash -> its chunks and their offsets
        self.files: dict[str, FileEntry] = {}  # file hash -> how to rebuild it
        self.by_chunk: dict[str, bytes] = {}  # chunk hash -> the shard section of its xorb (for dedup queries)

    # --- what the tests read -------------------------------------------------------------

    def xorb_bytes_received(self, since: int = 0) -> int:
        """Bytes of every xorb upload that reached the storage (each try counted), from its
        ``since``-th request on."""
        return sum(len(r.body) for r in self.uploads("/v1/xorbs/", since))

    def uploads(self, prefix: str, since: int = 0) -> list[Request]:
        """The POST requests to paths starting with ``prefix`` (``/v1/xorbs/``, ``/v2/shards``),
        from the storage's ``since``-th request on."""
        return [r for r in self.requests[since:] if r.method == "POST" and r.path.startswith(prefix)]

    def file_hash(self, sha256: str) -> str | None:
        """The Xet hash of the file uploaded with this sha256, if its shard arrived."""
        return next((h for h, f in self.files.items() if f.sha256 == sha256), None)

    def file_bytes(self, file_hash: str) -> bytes:
        """The file rebuilt from the chunks hf_xet sent."""
        out = bytearray()
        for xorb, unpacked, first, end in self.files[file_hash].segments:
            piece = b"".join(self.chunks[xorb][0][first:end])
            if len(piece) != unpacked:
                raise ValueError(f"xorb {xorb} chunks {first}-{end}: {len(piece)} bytes, the shard says {unpacked}")
            out += piece
        return bytes(out)

    # --- routes -------------------------------------------------------------------------------

    def route(self, req: Request):
        if req.path.startswith("/xorb/"):  # a fetch URL handed out by a reconstruction: pre-signed
            return self._fetch(req, req.path.removeprefix("/xorb/"))
        if req.headers.get("authorization") != f"Bearer {XET_TOKEN}":
            return 401, {"error": "invalid Xet access token"}
        m = re.fullmatch(r"/v1/xorbs/([^/]+)/([0-9a-f]{64})", req.path)
        if m and req.method == "POST":
            return self._put_xorb(m[2], req.body)
        if m and req.method == "HEAD":
            return (200 if m[2] in self.xorbs else 404), {}
        if req.path in ("/v1/shards", "/v2/shards") and req.method == "POST":
            status, answer = self._put_shard(req.body)
            if status != 200 or req.path == "/v1/shards":
                return status, answer
            # v2 streams NDJSON frames, ending with a terminal one (hf_xet reads it with its read timeout)
            frames = [{"type": "validating", "verified": 1, "total": 1}, {"type": "result"}]
            return 200, RawFile("".join(json.dumps(f) + "\n" for f in frames).encode(),
                                {"Content-Type": "application/x-ndjson"})
        m = re.fullmatch(r"/v1/chunks/([^/]+)/([0-9a-f]{64})", req.path)
        if m:
            section = self.by_chunk.get(m[2])
            if section is None:
                return 404, {}
            return 200, RawFile(dedup_shard([section]), {"Content-Type": "application/octet-stream"})
        m = re.fullmatch(r"/v1/reconstructions/([0-9a-f]{64})", req.path)
        if m:
            return self._reconstruction(m[1])
        return 404, {"error": f"no route {req.method} {req.path}"}

    def _put_xorb(self, xorb_hash: str, body: bytes):
        try:
            parsed = xorb_chunks(body)
        except (ValueError, IndexError, struct.error) as exc:
            return 400, {"error": f"malformed xorb: {exc}"}
        inserted = xorb_hash not in self.xorbs
        self.xorbs[xorb_hash], self.chunks[xorb_hash] = body, parsed
        return 200, {"was_inserted": inserted}

    def _put_shard(self, body: bytes):
        try:
            files, xorbs = parse_shard(body)
        except (ValueError, IndexError, struct.error) as exc:
            return 400, {"error": f"malformed shard: {exc}"}
        for entry in files.values():
            for xorb, _, first, end in entry.segments:
                if xorb not in self.chunks or end > len(self.chunks[xorb][0]):
                    return 400, {"error": f"shard names chunks {first}-{end} of xorb {xorb}, never uploaded"}
        self.files.update(files)
        for hashes, section in xorbs.values():
            for chunk in hashes:
                self.by_chunk.setdefault(chunk, section)
        return 200, {"result": 1}

    def _reconstruction(self, file_hash: str):
        entry = self.files.get(file_hash)
        if entry is None:
            return 404, {"error": "file not found"}
        terms, fetch = [], {}
        for xorb, unpacked, first, end in entry.segments:
            offsets = self.chunks[xorb][1]
            terms.append({"hash": xorb, "unpacked_length": unpacked, "range": {"start": first, "end": end}})
            fetch.setdefault(xorb, []).append({"range": {"start": first, "end": end}, "url": f"{self.endpoint}/xorb/{xorb}",
                                               "url_range": {"start": offsets[first], "end": offsets[end] - 1}})
        return 200, {"offset_into_first_range": 0, "terms": terms, "fetch_info": fetch}

    def _fetch(self, req: Request, xorb_hash: str):
        data = self.xorbs.get(xorb_hash)
        if data is None:
            return 404, {"error": "xorb not found"}
        m = re.fullmatch(r"bytes=(\d+)-(\d+)", req.headers.get("range", ""))
        if not m:
            return 200, RawFile(data, {"Content-Type": "application/octet-stream"})
        start, end = int(m[1]), int(m[2])
        return 206, RawFile(data[start:end + 1], {"Content-Type": "application/octet-stream",
                                                  "Content-Range": f"bytes {start}-{end}/{len(data)}"})
