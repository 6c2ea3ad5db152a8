"""The judge's own file access, wherever a child could have planted something.

A student's code must never stall the judge or make it write through a link: every file the
judge or `batch` reads from a place a child could have reached is opened non-blocking, without
following a final link where that matters, checked to be a regular file and read up to a bound;
every report is written to a fresh file (O_CREAT | O_EXCL | O_NOFOLLOW, a random name) in the
destination's folder and renamed over the destination, so that a link, a fake report or a folder
left at the destination or at a temporary name is replaced or refused, never written through.
"""

import os
import secrets
import shutil
import stat
import tempfile
from functools import lru_cache

from grader.sandbox import containment


class UnsafeFile(OSError):
    """A file the judge refuses to read or write: a link, a pipe, a device, a folder, too large."""


def read_regular(path, limit, follow=True, head=False):
    """The bytes of the regular file at `path`, at most `limit` of them (UnsafeFile beyond that,
    or for anything but a regular file; with follow=False, also for a link). With `head`, a
    longer file is not refused: its first `limit` bytes are returned."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        if not follow and os.path.islink(path):
            raise UnsafeFile(f"{path} is a link: give the file itself") from None
        raise error
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFile(f"{path} is not a regular file")
        if info.st_size > limit and not head:
            raise UnsafeFile(f"{path} is too large ({info.st_size} bytes; the limit is {limit})")
        chunks, left = [], limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if head:
            return data[:limit]
        if len(data) > limit:
            raise UnsafeFile(f"{path} is too large (over {limit} bytes)")
        return data
    finally:
        os.close(fd)


def remove_tree(path):
    """Remove a folder a child could write into, whatever it did there: the folders it made
    unreadable or unwritable (chmod 0) are opened up first, so that a user's (non-root) grader
    leaves nothing behind; links are removed, never followed."""
    stack = [os.fspath(path)]
    while stack:
        folder = stack.pop()
        try:
            os.chmod(folder, stat.S_IRWXU)
            with os.scandir(folder) as entries:
                stack += [entry.path for entry in entries if entry.is_dir(follow_symlinks=False)]
        except OSError:
            continue
    shutil.rmtree(path, ignore_errors=True)


def check_destination(path):
    """Refuse (UnsafeFile) a report destination that is a link or anything but a regular file, or
    that `write_replacing` could not write: its folder missing, or one where no file can be made
    (tried, with a file created and removed at once: permissions, a read-only disk, root or not)."""
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        info = None
    if info is not None and stat.S_ISLNK(info.st_mode):
        raise UnsafeFile(f"{path} is a link: name a regular file, or a path that does not exist yet")
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise UnsafeFile(f"{path} is not a regular file")
    folder, name = os.path.split(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UnsafeFile(f"{path}: there is no folder {folder} to write it in")
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    except OSError as error:
        raise UnsafeFile(f"{path} cannot be written: {error.strerror or error} in {folder}") from None
    os.close(fd)
    os.unlink(temporary)


def write_replacing(path, data):
    """Write `data` (str or bytes) to `path` whole: a reader never sees half of it, and whatever
    was at `path` (a fake report, a link) is replaced, never written through; a folder there is
    refused (UnsafeFile)."""
    path = os.fspath(path)
    if os.path.isdir(path) and not os.path.islink(path):
        raise UnsafeFile(f"{path} is a folder")
    data = data.encode("utf-8") if isinstance(data, str) else data
    folder, name = os.path.split(os.path.abspath(path))
    for _ in range(100):
        temporary = os.path.join(folder, f".{name}.{secrets.token_hex(8)}.tmp")
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
            break
        except FileExistsError:
            continue
    else:
        raise UnsafeFile(f"cannot create a temporary file in {folder}")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


@lru_cache(maxsize=1)
def _secret_inodes():
    """(device, inode) of every file of the kit's secret trees."""
    found = set()
    for tree in containment.kit_secrets():
        for folder, _, names in os.walk(tree):
            for name in names:
                try:
                    info = os.stat(os.path.join(folder, name))
                except OSError:
                    continue
                found.add((info.st_dev, info.st_ino))
    return frozenset(found)


MAX_SOURCE_BYTES = 2 << 20  # a student's file: far more than any exercise needs


def read_submission(path):
    """A student's file as the judge sends it to the child: a regular file (never a link, a pipe or
    a device), at most MAX_SOURCE_BYTES, and not one of the kit's own files (a hard link to the
    answer key is the answer key). Raises UnsafeFile with a message for the student."""
    data = read_regular(path, MAX_SOURCE_BYTES, follow=False)
    info = os.stat(path, follow_symlinks=False)
    real = os.path.realpath(path)
    own = any(real.startswith(os.path.realpath(tree) + os.sep) for tree in containment.kit_secrets())
    if (info.st_dev, info.st_ino) in _secret_inodes() and not own:  # grading solutions/ itself is fine
        raise UnsafeFile(f"{os.path.basename(path)} is a link to one of the grader's own files, "
                         "not your code: submit the file you wrote")
    return data
