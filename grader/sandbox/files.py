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
import stat
import tempfile
from functools import lru_cache

from grader.sandbox import containment


class UnsafeFile(OSError):
    """A file the judge refuses to read or write: a link, a pipe, a device, a folder, too large."""


def read_regular(path, limit, follow=True, head=False, refuse=None, start=0):
    """The bytes of the regular file at `path`, at most `limit` of them (UnsafeFile beyond that,
    or for anything but a regular file; with follow=False, also for a link). With `head`, a
    longer file is not refused: its first `limit` bytes are returned. `refuse(info)`, given the
    open file's fstat, may raise UnsafeFile before anything is read: a check of the very file read.
    `start`: read from that offset on (with `head`)."""
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
            raise UnsafeFile(f"{path} is {kind(info.st_mode)}, not a regular file")
        if info.st_size > limit and not head:
            raise UnsafeFile(f"{path} is too large ({info.st_size} bytes; the limit is {limit})")
        if refuse is not None:
            refuse(info)
        chunks, left = [], limit + 1
        if start:
            os.lseek(fd, start, os.SEEK_SET)
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


_KINDS = ((stat.S_ISLNK, "a link"), (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a pipe"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"))


def kind(mode):
    """What a file of this st_mode is, in words: "a link", "a pipe", ..., "a regular file"."""
    return next((name for test, name in _KINDS if test(mode)), "a regular file" if stat.S_ISREG(mode) else "a special file")


def remove_tree(path):
    """Remove a folder a child could write into, whatever it did there: the folders it made
    unreadable or unwritable (chmod 0) are opened up first, so that a user's (non-root) grader
    leaves nothing behind; links are removed, never followed. No recursion and no long paths: each
    folder is opened relative to its parent, so a tree of any depth goes (shutil.rmtree recurses
    and, past Python's recursion limit, raises)."""
    path = os.fspath(path)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(info.st_mode):
        os.unlink(path)
        return
    parent, name = os.path.split(os.path.abspath(path))
    stack = [(os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC), [name])]
    try:  # stack: (an open folder, the names of its sub-folders still to remove), top to bottom
        while stack:
            fd, pending = stack[-1]
            if not pending:
                os.close(stack.pop()[0])
                if stack:
                    _quietly(os.rmdir, stack[-1][1].pop(), dir_fd=stack[-1][0])
                continue
            child = _open_emptied(pending[-1], fd)
            if child is None:  # not a folder after all, or gone
                pending.pop()
            else:
                stack.append(child)
    finally:
        for fd, _ in stack:
            os.close(fd)


def _open_emptied(name, parent):
    """(fd, its sub-folders' names) of the folder `name` in `parent`, made ours and emptied of all
    but its sub-folders; None, the entry removed, if it is not a folder."""
    _make_ours(name, parent)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    except OSError:
        _quietly(os.unlink, name, dir_fd=parent)
        return None
    folders = []
    with os.scandir(fd) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                folders.append(entry.name)
            else:
                _quietly(os.unlink, entry.name, dir_fd=fd)
    return fd, folders


def _make_ours(name, parent):
    """chmod 0700 the folder `name` in `parent`, never what a link there points at: on Linux through
    an O_PATH handle of the folder itself (Linux's chmod cannot refuse to follow a link)."""
    if not hasattr(os, "O_PATH"):
        _quietly(os.chmod, name, stat.S_IRWXU, dir_fd=parent, follow_symlinks=False)
        return
    try:
        handle = os.open(name, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    except OSError:
        return
    try:
        _quietly(os.chmod, f"/proc/self/fd/{handle}", stat.S_IRWXU)
    finally:
        os.close(handle)


def _quietly(call, *args, **kwargs):
    try:
        call(*args, **kwargs)
    except OSError:
        pass


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
        fd, temporary = tempfile.mkstemp(prefix=f".{name[:48]}.", suffix=".tmp", dir=folder)
    except OSError as error:
        raise UnsafeFile(f"{path} cannot be written: {error.strerror or error} in {folder}") from None
    os.close(fd)
    os.unlink(temporary)


def write_replacing(path, data, dir_fd=None):
    """Write `data` (str or bytes) to `path` whole: a reader never sees half of it, and whatever
    was at `path` (a fake report, a link) is replaced, never written through; a folder there is
    refused (UnsafeFile). With `dir_fd` (an open folder), `path` is a name in that very folder,
    whatever its path leads to meanwhile (a folder swapped for a link: `in_own_folder`)."""
    path = os.fspath(path)
    try:
        there = os.stat(path, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except FileNotFoundError:
        there = 0
    if stat.S_ISDIR(there):
        raise UnsafeFile(f"{path} is a folder")
    data = data.encode("utf-8") if isinstance(data, str) else data
    folder, name = ("", path) if dir_fd is not None else os.path.split(os.path.abspath(path))
    for _ in range(100):
        temporary = os.path.join(folder, f".{name[:48]}.{secrets.token_hex(8)}.tmp")  # never past NAME_MAX
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644,
                         dir_fd=dir_fd)
            break
        except FileExistsError:
            continue
    else:
        raise UnsafeFile(f"cannot create a temporary file in {folder or 'its folder'}")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(temporary, path, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(temporary, dir_fd=dir_fd)
        except OSError:
            pass
        raise


def in_own_folder(path, data):
    """`write_replacing` of `data` to `path`, its folder opened first and never a link: written into that
    folder even if its path is swapped for a link before the write (round 55's note: root grading a
    student's folder while a process of theirs swaps `.lumen` for a link to another)."""
    where = os.path.dirname(os.path.abspath(path))
    try:
        folder = os.open(where, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        if os.path.islink(where):  # ELOOP or ENOTDIR, as the kernel tells it
            raise UnsafeFile(f"{where} is a link, not a folder") from None
        raise
    try:
        write_replacing(os.path.basename(path), data, dir_fd=folder)
    finally:
        os.close(folder)


@lru_cache(maxsize=4)
def _secret_inodes(trees):
    """(device, inode) of every file of the `trees`."""
    found = set()
    for tree in trees:
        for folder, _, names in os.walk(tree):
            for name in names:
                try:
                    info = os.stat(os.path.join(folder, name))
                except OSError:
                    continue
                found.add((info.st_dev, info.st_ino))
    return frozenset(found)


MAX_SOURCE_BYTES = 2 << 20  # a student's file: far more than any exercise needs


def read_submission(path, limit=MAX_SOURCE_BYTES, secrets=()):
    """A student's file as the judge sends it to the child, and as `batch` and Gradescope stage it
    (one rule for all three): a regular file (never a link, a pipe, a socket or a device), at most
    `limit` bytes, and not one of the kit's own files nor one of the trees `secrets` (a Gradescope
    bundle's copy of the kit and its solution: round 25's a16): a hard link to the answer key is the
    answer key, judged by the very file read. Raises UnsafeFile with a message for the student."""
    trees = (*containment.kit_secrets(), *map(str, secrets))
    # the kit's own file, named as one (`--submission solutions`), not a path that only leads into
    # the kit through a link: a student folder linked to solutions/ is not the answer key's folder
    given, real = os.path.abspath(path), os.path.realpath(path)
    own = any(real.startswith(os.path.realpath(tree) + os.sep)
              and any(given.startswith(root + os.sep) for root in {os.path.abspath(tree), os.path.realpath(tree)})
              for tree in trees)

    def refuse(info):
        if not own and (info.st_dev, info.st_ino) in _secret_inodes(trees):  # grading solutions/ itself is fine
            raise UnsafeFile(f"{os.path.basename(path)} is a link to one of the grader's own files, "
                             "not your code: submit the file you wrote")

    return read_regular(path, limit, follow=False, refuse=refuse)
