"""A small Hugging Face Hub on 127.0.0.1 for the publish tests.

It implements the endpoints the real ``huggingface_hub`` client calls to publish a dataset:
whoami, repo create and info, refs, tree, validate-yaml, preupload, commit (NDJSON, with
``parentCommit`` checked like the Hub: 412 when the branch moved), tag create and delete. Every
request is recorded. Faults can be queued per endpoint to test refusals and retries.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlparse


def git_blob_oid(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class Commit:
    oid: str
    parent: str | None
    files: dict[str, bytes]
    message: str


@dataclass
class Repo:
    owner: str
    private: bool
    commits: dict[str, Commit] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)

    def commit(self, parent: str | None, files: dict[str, bytes], message: str) -> Commit:
        digest = hashlib.sha1(json.dumps([parent, message, sorted((k, git_blob_oid(v)) for k, v in files.items())]).encode())
        c = Commit(digest.hexdigest(), parent, files, message)
        self.commits[c.oid] = c
        return c


@dataclass
class Request:
    method: str
    path: str
    query: dict
    headers: dict  # lower-case names
    body: bytes


class Hub:
    def __init__(self, users: dict[str, tuple[str, list[str]]]):
        """``users``: token -> (user name, organisations it may write to)."""
        self.users = users
        self.repos: dict[str, Repo] = {}
        self.requests: list[Request] = []
        self.faults: list[tuple[str, str, int]] = []  # (method, path regex, status), used once each
        self.before_commit = None  # callable(hub, repo_id) run when a commit arrives
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "Hub":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def add_repo(self, repo_id: str, owner: str, files: dict[str, bytes] | None = None) -> Repo:
        repo = self.repos[repo_id] = Repo(owner=owner, private=False)
        first = repo.commit(None, {".gitattributes": b"*.parquet filter=lfs diff=lfs merge=lfs -text\n", **(files or {})}, "initial commit")
        repo.branches["main"] = first.oid
        return repo

    def fail(self, method: str, path_regex: str, status: int, times: int = 1) -> None:
        self.faults.extend([(method, path_regex, status)] * times)

    def head_files(self, repo_id: str, branch: str = "main") -> dict[str, bytes]:
        repo = self.repos[repo_id]
        return repo.commits[repo.branches[branch]].files

    def commits_received(self) -> list[Request]:
        return [r for r in self.requests if r.method == "POST" and "/commit/" in r.path]

    def _handler(self):
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # keep test output quiet
                pass

            def _send(self, status: int, payload=None) -> None:
                body = json.dumps(payload if payload is not None else {}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                if status >= 400:
                    self.send_header("X-Error-Message", (payload or {}).get("error", "error"))
                self.end_headers()
                self.wfile.write(body)

            def _handle(self, method: str) -> None:
                url = urlparse(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                req = Request(method, unquote(url.path), parse_qs(url.query), headers, body)
                with hub.lock:
                    hub.requests.append(req)
                    for k, (m, rx, status) in enumerate(hub.faults):
                        if m == method and re.search(rx, req.path):
                            del hub.faults[k]
                            return self._send(status, {"error": f"injected {status}"})
                    try:
                        status, payload = hub.route(req)
                    except Exception as exc:  # a bug in the fake hub must show, not hang the client
                        status, payload = 500, {"error": f"test hub error: {exc!r}"}
                self._send(status, payload)

            def do_GET(self):
                self._handle("GET")

            def do_POST(self):
                self._handle("POST")

            def do_DELETE(self):
                self._handle("DELETE")

        return Handler

    # --- routing -----------------------------------------------------------------------------

    def _user(self, req: Request):
        auth = req.headers.get("authorization", "")
        token = auth.removeprefix("Bearer ").strip()
        return self.users.get(token)

    def route(self, req: Request):
        user = self._user(req)
        path = req.path
        if path == "/api/whoami-v2":
            if not user:
                return 401, {"error": "Invalid credentials in Authorization header"}
            name, orgs = user
            return 200, {"type": "user", "name": name, "orgs": [{"name": o, "roleInOrg": "write"} for o in orgs],
                         "auth": {"type": "access_token", "accessToken": {"role": "write"}}}
        if not user:
            return 401, {"error": "Invalid credentials in Authorization header"}
        name, orgs = user
        if path == "/api/validate-yaml":
            content = json.loads(req.body)["content"]
            ok = content.startswith("---\n") and "\n---\n" in content
            return (200, {}) if ok else (400, {"error": "Invalid metadata in README.md"})
        if path == "/api/repos/create":
            data = json.loads(req.body)
            owner = data.get("organization") or name
            repo_id = f"{owner}/{data['name']}"
            if owner != name and owner not in orgs:
                return 403, {"error": "You don't have the rights to create a dataset under this namespace"}
            if repo_id in self.repos:
                return 409, {"error": "You already created this dataset repo", "url": f"{self.endpoint}/datasets/{repo_id}"}
            self.add_repo(repo_id, owner).private = bool(data.get("private"))
            return 200, {"url": f"{self.endpoint}/datasets/{repo_id}"}
        m = re.fullmatch(r"/api/datasets/([^/]+/[^/]+)/(refs|tree|preupload|commit|tag|revision)(?:/([^/]+))?(?:/(.*))?", path)
        if not m:
            return 404, {"error": f"no route {req.method} {path}"}
        repo_id, action, rev, rest = m.groups()
        repo = self.repos.get(repo_id)
        if repo is None:
            return 404, {"error": "Repository not found"}
        writable = repo.owner == name or repo.owner in orgs
        if action == "refs":
            return 200, {
                "branches": [{"name": b, "ref": f"refs/heads/{b}", "targetCommit": c} for b, c in sorted(repo.branches.items())],
                "tags": [{"name": t, "ref": f"refs/tags/{t}", "targetCommit": c} for t, c in sorted(repo.tags.items())],
                "converts": [],
            }
        oid = repo.branches.get(rev) or repo.tags.get(rev) or (rev if rev in repo.commits else None)
        if action == "revision":
            if oid is None:
                return 404, {"error": "Revision not found"}
            files = repo.commits[oid].files
            return 200, {"id": repo_id, "sha": oid, "private": repo.private, "siblings": [{"rfilename": p} for p in sorted(files)]}
        if action == "tree":
            if oid is None:
                return 404, {"error": "Revision not found"}
            return 200, [
                {"type": "file", "path": p, "size": len(b), "oid": git_blob_oid(b)}
                for p, b in sorted(repo.commits[oid].files.items())
            ]
        if not writable:
            return 403, {"error": "You don't have the rights to write to this repository"}
        if action == "preupload":
            files = json.loads(req.body)["files"]
            current = repo.commits[repo.branches[rev]].files if rev in repo.branches else {}
            return 200, {"files": [
                {"path": f["path"], "uploadMode": "regular", "shouldIgnore": False,
                 "oid": git_blob_oid(current[f["path"]]) if f["path"] in current else None}
                for f in files
            ]}
        if action == "commit":
            if self.before_commit:
                hook, self.before_commit = self.before_commit, None
                hook(self, repo_id)
            lines = [json.loads(line) for line in req.body.splitlines() if line.strip()]
            header = next(x["value"] for x in lines if x["key"] == "header")
            head = repo.branches.get(rev)
            parent = header.get("parentCommit")
            if parent is not None and parent != head:
                return 412, {"error": "A commit has happened since. Please refresh and try again."}
            files = dict(repo.commits[head].files) if head else {}
            for item in lines:
                if item["key"] == "file":
                    files[item["value"]["path"]] = base64.b64decode(item["value"]["content"])
                elif item["key"] == "deletedFile":
                    if item["value"]["path"] not in files:
                        return 404, {"error": "A file with this name doesn't exist"}
                    del files[item["value"]["path"]]
                elif item["key"] in ("lfsFile", "deletedFolder"):
                    return 400, {"error": f"{item['key']} not supported by the test hub"}
            c = repo.commit(head, files, header["summary"])
            repo.branches[rev] = c.oid
            return 200, {"success": True, "commitOid": c.oid, "commitUrl": f"{self.endpoint}/datasets/{repo_id}/commit/{c.oid}",
                         "pullRequestUrl": None}
        if action == "tag":
            if req.method == "DELETE":
                if rev not in repo.tags:
                    return 404, {"error": "Tag not found"}
                del repo.tags[rev]
                return 200, {}
            tag = json.loads(req.body)["tag"]
            if oid is None:
                return 404, {"error": "Revision not found"}
            if tag in repo.tags:
                return 409, {"error": f"Tag {tag} already exists"}
            repo.tags[tag] = oid
            return 200, {}
        return 404, {"error": "no route"}
