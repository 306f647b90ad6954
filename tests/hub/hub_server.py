"""A small Hugging Face Hub on 127.0.0.1 for the publish tests, with its Xet storage.

It implements the endpoints the real ``huggingface_hub`` client calls to publish a dataset:
whoami, repo create and info, refs, tree, commits, validate-yaml, preupload, the Xet write and
read token routes (handing out the storage of ``xet_storage``), the git LFS batch API with its
upload and verify actions, commit (NDJSON with ``file`` and ``lfsFile`` entries, ``parentCommit``
checked like the Hub: 412 when the branch moved), tag create and delete, and resolve.

Like the Hub, preupload answers "lfs" for a file that the repository's .gitattributes sends to
LFS (``*.parquet`` in a new dataset repository), that is binary or of 10 MiB or more, and
"regular" otherwise; for an LFS file the tree gives the git id of its pointer and the sha256
under ``lfs``. huggingface_hub sends LFS files through Xet when hf_xet is installed, as it is for
every user: hf_xet asks the write-token route for the storage and its token, uploads xorbs and a
shard there, and the commit's ``lfsFile`` entry names the file by its sha256, which the shard
records. A commit takes the bytes the storage rebuilds from what hf_xet sent. Resolve gives an
LFS file's Xet hash and read-token route (``X-Xet-Hash``, ``Link: rel="xet-auth"``), so
hf_hub_download reads it back through hf_xet from the storage. With HF_HUB_DISABLE_XET=1 the
client takes the LFS batch path, which is served too.

Every request is recorded, by the Hub and by its storage. Faults (``server.Fault``) can be queued
on either to test refusals, retries and recovery: for the Nth request, for the next requests of
a publish step (``STEPS``, ``STORAGE_STEPS``), or for any method and path. ``storage_endpoint``
set to a closed port makes the storage down.
"""

from __future__ import annotations

import base64
import fnmatch
import hashlib
import json
import re
import time
from dataclasses import dataclass, field

from tests.hub.server import RawFile, Request, Server
from tests.hub.xet_storage import XET_TOKEN, Storage

LFS_THRESHOLD = 10 * 1024 * 1024

# The requests that make each step of a publish, as (method, path regex). The applied-commit
# check starts with a refs read like the one before the commit: its fault skips that one.
STEPS = {
    "whoami": ("GET", r"^/api/whoami-v2$"),
    "create repo": ("POST", r"^/api/repos/create$"),
    "read refs": ("GET", r"^/api/datasets/[^/]+/[^/]+/refs$"),
    "pre-upload": ("POST", r"^/api/datasets/[^/]+/[^/]+/preupload/"),
    "Xet token": ("GET", r"^/api/datasets/[^/]+/[^/]+/xet-write-token/"),
    "LFS batch": ("POST", r"\.git/info/lfs/objects/batch$"),
    "LFS upload": ("PUT", r"^/lfs-upload/"),
    "commit": ("POST", r"^/api/datasets/[^/]+/[^/]+/commit/"),
    "applied-commit check": ("GET", r"^/api/datasets/[^/]+/[^/]+/refs$"),
    "tag": ("POST", r"^/api/datasets/[^/]+/[^/]+/tag/"),
}
# The requests to the Xet storage (``Hub.storage``) of each step of an upload through hf_xet.
STORAGE_STEPS = {
    "dedup query": ("GET", r"^/v1/chunks/"),
    "xorb upload": ("POST", r"^/v1/xorbs/"),
    "shard upload": ("POST", r"^/v2/shards$"),
}
SKIP = {"applied-commit check": 1}  # matching requests of earlier steps


def git_blob_oid(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def lfs_pointer(data: bytes) -> bytes:
    return f"version https://git-lfs.github.com/spec/v1\noid sha256:{hashlib.sha256(data).hexdigest()}\nsize {len(data)}\n".encode()


def lfs_patterns(gitattributes: bytes) -> list[str]:
    return [line.split()[0] for line in gitattributes.decode().splitlines() if "filter=lfs" in line.split()[1:]]


@dataclass
class Commit:
    oid: str
    parent: str | None
    files: dict[str, bytes]
    message: str
    lfs: frozenset[str] = frozenset()  # paths stored as LFS pointers


@dataclass
class Repo:
    owner: str
    private: bool
    commits: dict[str, Commit] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    lfs_objects: dict[str, bytes] = field(default_factory=dict)  # sha256 -> content, once uploaded

    def commit(self, parent: str | None, files: dict[str, bytes], message: str, lfs=frozenset()) -> Commit:
        digest = hashlib.sha1(json.dumps([parent, message, sorted((k, git_blob_oid(v)) for k, v in files.items())]).encode())
        c = Commit(digest.hexdigest(), parent, files, message, frozenset(lfs))
        self.commits[c.oid] = c
        return c

    def upload_mode(self, branch: str, path: str, size: int, sample: bytes) -> str:
        head = self.commits[self.branches[branch]] if branch in self.branches else None
        patterns = lfs_patterns(head.files.get(".gitattributes", b"")) if head else []
        name = path.rsplit("/", 1)[-1]
        if any(fnmatch.fnmatch(path, p) or fnmatch.fnmatch(name, p) for p in patterns):
            return "lfs"
        return "lfs" if size >= LFS_THRESHOLD or b"\0" in sample else "regular"


class Hub(Server):
    def __init__(self, users: dict[str, tuple[str, list[str]]]):
        """``users``: token -> (user name, organisations it may write to)."""
        super().__init__()
        self.users = users
        self.repos: dict[str, Repo] = {}
        self.before_commit = None  # callable(hub, repo_id) run when a commit arrives
        self.storage = Storage()
        self.storage_endpoint = self.storage.endpoint  # what the token routes hand out (another: storage down)

    def __enter__(self) -> "Hub":
        self.storage.__enter__()
        return super().__enter__()

    def __exit__(self, *exc) -> None:
        super().__exit__(*exc)
        self.storage.__exit__(*exc)

    def add_repo(self, repo_id: str, owner: str, files: dict[str, bytes] | None = None) -> Repo:
        repo = self.repos[repo_id] = Repo(owner=owner, private=False)
        first = repo.commit(None, {".gitattributes": b"*.parquet filter=lfs diff=lfs merge=lfs -text\n", **(files or {})}, "initial commit")
        repo.branches["main"] = first.oid
        return repo

    def fail_step(self, step: str, kind: str, times: int = 1, after: bool = False,
                  retry_after: str | None = None) -> None:
        """Fail the next ``times`` requests of a publish step (a key of ``STEPS``)."""
        server = self.storage if step in STORAGE_STEPS else self
        server.fail(*{**STEPS, **STORAGE_STEPS}[step], kind, times=times, after=after, skip=SKIP.get(step, 0),
                    retry_after=retry_after)

    def step_requests(self, step: str) -> list["Request"]:
        method, path = {**STEPS, **STORAGE_STEPS}[step]
        requests = self.storage.requests if step in STORAGE_STEPS else self.requests
        return [r for r in requests if r.method == method and re.search(path, r.path)]

    def head_files(self, repo_id: str, branch: str = "main") -> dict[str, bytes]:
        repo = self.repos[repo_id]
        return repo.commits[repo.branches[branch]].files

    def head_lfs(self, repo_id: str, branch: str = "main") -> frozenset[str]:
        repo = self.repos[repo_id]
        return repo.commits[repo.branches[branch]].lfs

    def commits_received(self) -> list[Request]:
        return [r for r in self.requests if r.method == "POST" and "/commit/" in r.path]

    def lfs_uploads(self) -> list[Request]:
        return [r for r in self.requests if r.method == "PUT" and r.path.startswith("/lfs-upload/")]

    # --- routing -----------------------------------------------------------------------------

    def _user(self, req: Request):
        auth = req.headers.get("authorization", "")
        token = auth.removeprefix("Bearer ").strip()
        return self.users.get(token)

    def route(self, req: Request):
        user = self._user(req)
        path = req.path
        m = re.fullmatch(r"/lfs-(upload|verify)/([^/]+/[^/]+)/([0-9a-f]{64})", path)
        if m:  # the storage URLs the batch API hands out: pre-signed on the Hub, so no token here
            return self._lfs_storage(req, *m.groups())
        m = re.fullmatch(r"/datasets/([^/]+/[^/]+)\.git/info/lfs/objects/batch", path)
        if m:
            return self._lfs_batch(req, user, m[1])
        m = re.fullmatch(r"/datasets/([^/]+/[^/]+)/resolve/([^/]+)/(.+)", path)
        if m:  # a file of a public repository: what hf_hub_download fetches, no token needed
            return self._resolve(*m.groups())
        m = re.fullmatch(r"/api/datasets/([^/]+/[^/]+)/xet-read-token/([^/]+)", path)
        if m:  # a public repository's files are readable without a token, from Xet storage too
            return (404, {"error": "Repository not found"}) if m[1] not in self.repos else self._xet_token()
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
        m = re.fullmatch(r"/api/datasets/([^/]+/[^/]+)/(refs|tree|preupload|commit|commits|tag|revision|xet-write-token)(?:/([^/]+))?(?:/(.*))?", path)
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
            commit = repo.commits[oid]
            return 200, [self._tree_entry(p, b, p in commit.lfs) for p, b in sorted(commit.files.items())]
        if action == "commits":
            if oid is None:
                return 404, {"error": "Revision not found"}
            history = []
            while oid is not None:
                c = repo.commits[oid]
                history.append({"id": c.oid, "title": c.message, "message": "", "authors": [{"user": repo.owner}],
                                "date": "2026-11-29T00:00:00.000Z"})
                oid = c.parent
            return 200, history
        if not writable:
            return 403, {"error": "You don't have the rights to write to this repository"}
        if action == "xet-write-token":
            return self._xet_token()
        if action == "preupload":
            answers = []
            head = repo.commits[repo.branches[rev]] if rev in repo.branches else None
            for f in json.loads(req.body)["files"]:
                mode = repo.upload_mode(rev, f["path"], f["size"], base64.b64decode(f["sample"]))
                current = head.files.get(f["path"]) if head else None
                # The id the client compares with its own: sha256 for LFS content, git's for the rest.
                oid = None if current is None else hashlib.sha256(current).hexdigest() if mode == "lfs" else git_blob_oid(current)
                answers.append({"path": f["path"], "uploadMode": mode, "shouldIgnore": False, "oid": oid})
            return 200, {"files": answers}
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
            lfs = set(repo.commits[head].lfs) if head else set()
            for item in lines:
                path = item["value"].get("path") if isinstance(item["value"], dict) else None
                if item["key"] == "file":
                    files[path] = base64.b64decode(item["value"]["content"])
                    lfs.discard(path)
                elif item["key"] == "lfsFile":
                    oid = item["value"]["oid"]  # a sha256, of an LFS object or of a file in Xet storage
                    xet = self.storage.file_hash(oid)
                    data = repo.lfs_objects.get(oid) if xet is None else self.storage.file_bytes(xet)
                    if data is None or len(data) != item["value"]["size"]:
                        return 422, {"error": f"LFS object {item['value']['oid']} for {path} was never uploaded"}
                    files[path] = data
                    lfs.add(path)
                elif item["key"] == "deletedFile":
                    if path not in files:
                        return 404, {"error": "A file with this name doesn't exist"}
                    del files[path]
                    lfs.discard(path)
                elif item["key"] == "deletedFolder":
                    return 400, {"error": "deletedFolder not supported by the test hub"}
            c = repo.commit(head, files, header["summary"], lfs)
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

    def _resolve(self, repo_id: str, rev: str, path: str):
        repo = self.repos.get(repo_id)
        if repo is None:
            return 404, {"error": "Repository not found"}
        oid = repo.branches.get(rev) or repo.tags.get(rev) or (rev if rev in repo.commits else None)
        if oid is None:
            return 404, {"error": "Revision not found"}
        data = repo.commits[oid].files.get(path)
        if data is None:
            return 404, {"error": "Entry not found"}
        is_lfs = path in repo.commits[oid].lfs
        etag = hashlib.sha256(data).hexdigest() if is_lfs else git_blob_oid(data)
        headers = {"X-Repo-Commit": oid, "ETag": f'"{etag}"', "Content-Type": "application/octet-stream"}
        xet = self.storage.file_hash(etag) if is_lfs else None
        if xet is not None:  # where hf_xet downloads it from, and the route of its read token
            route = f"{self.endpoint}/api/datasets/{repo_id}/xet-read-token/{oid}"
            headers.update({"X-Xet-Hash": xet, "X-Xet-Refresh-Route": route, "Link": f'<{route}>; rel="xet-auth"',
                            "X-Linked-Size": str(len(data)), "X-Linked-Etag": f'"{etag}"'})
        return 200, RawFile(data, headers)

    def _xet_token(self):
        """The short-lived token of the Xet storage, in the headers and the body a Hub answers."""
        expires = int(time.time()) + 3600
        headers = {"X-Xet-Cas-Url": self.storage_endpoint, "X-Xet-Access-Token": XET_TOKEN,
                   "X-Xet-Token-Expiration": str(expires), "Content-Type": "application/json"}
        body = json.dumps({"casUrl": self.storage_endpoint, "accessToken": XET_TOKEN, "exp": expires}).encode()
        return 200, RawFile(body, headers)

    def _tree_entry(self, path: str, data: bytes, is_lfs: bool) -> dict:
        if not is_lfs:
            return {"type": "file", "path": path, "size": len(data), "oid": git_blob_oid(data)}
        pointer = lfs_pointer(data)
        sha256 = hashlib.sha256(data).hexdigest()
        xet = self.storage.file_hash(sha256)
        return {"type": "file", "path": path, "size": len(data), "oid": git_blob_oid(pointer),
                "lfs": {"oid": sha256, "size": len(data), "pointerSize": len(pointer)}, **({"xetHash": xet} if xet else {})}

    def _lfs_batch(self, req: Request, user, repo_id: str):
        """The git LFS batch API (upload): storage actions for objects the repository lacks."""
        if not user:
            return 401, {"message": "Invalid credentials"}
        repo = self.repos.get(repo_id)
        if repo is None:
            return 404, {"message": "Repository not found"}
        if repo.owner != user[0] and repo.owner not in user[1]:
            return 403, {"message": "You don't have the rights to write to this repository"}
        batch = json.loads(req.body)
        if batch.get("operation") != "upload" or batch.get("hash_algo", "sha256") != "sha256":
            return 422, {"message": "only sha256 uploads are supported"}
        objects = []
        for obj in batch["objects"]:
            entry = {"oid": obj["oid"], "size": obj["size"], "authenticated": True}
            if obj["oid"] not in repo.lfs_objects:  # present objects get no actions: nothing to send
                entry["actions"] = {
                    "upload": {"href": f"{self.endpoint}/lfs-upload/{repo_id}/{obj['oid']}", "header": {}},
                    "verify": {"href": f"{self.endpoint}/lfs-verify/{repo_id}/{obj['oid']}", "header": {}},
                }
            objects.append(entry)
        return 200, {"transfer": "basic", "objects": objects, "hash_algo": "sha256"}

    def _lfs_storage(self, req: Request, kind: str, repo_id: str, oid: str):
        repo = self.repos.get(repo_id)
        if repo is None:
            return 404, {"error": "Repository not found"}
        if kind == "upload":
            if req.method != "PUT" or hashlib.sha256(req.body).hexdigest() != oid:
                return 400, {"error": "uploaded bytes do not match their sha256"}
            repo.lfs_objects[oid] = req.body
            return 200, {}
        data = repo.lfs_objects.get(oid)
        body = json.loads(req.body)
        if data is None or body.get("oid") != oid or body.get("size") != len(data):
            return 404, {"error": "LFS object not found"}
        return 200, {}
