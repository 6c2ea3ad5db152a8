"""Tries every way out of its confinement and says what each attempt gave ("denied" or "allowed"):
the answer key read by path, through a folder's file descriptor (dir_fd), through a hard link and a
symbolic link made in its scratch folder; the kit's suites and solutions; writing beside its own
file, in /tmp, in the kit and in its scratch folder; reading its own file; memory shared through
/dev/zero or a file of its scratch folder, which --memory-limit (RLIMIT_DATA) would not count;
files at the root of its file system, more empty files in its scratch folder than a child may
make, 64 GiB of address space and 2000 open files (each costs kernel memory that no size limit
counts); a file it wrote in its scratch folder mapped to run (a library of its own: round 49's a02). Besides: the paths of the unix sockets /proc/net/unix shows it (round 27's a02: the host's,
in other users' private folders).
@KIT@ is the kit's folder, written in by the test."""

import mmap
import os
import tempfile

KIT = "@KIT@"
KEY = os.path.join(KIT, "lumen_ref", "steps.py")


def _attempt(action):
    try:
        action()
        return "allowed"
    except OSError:
        return "denied"


def _read(path):
    with open(path, "rb") as file:
        file.read(1)


def _write(path):
    with open(path, "w") as file:
        file.write("x")


def _by_dir_fd():
    folder = os.open(os.path.join(KIT, "lumen_ref"), os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.close(os.open("steps.py", os.O_RDONLY, dir_fd=folder))
    finally:
        os.close(folder)


def _by_link(make):
    target = os.path.join(tempfile.gettempdir(), f"key-{make.__name__}")
    make(KEY, target)
    _read(target)


def _share(path, size=1 << 20):
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if not path.startswith("/dev/"):
            os.ftruncate(fd, size)
        mmap.mmap(fd, size, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ | mmap.PROT_WRITE).close()
    finally:
        os.close(fd)


def _run_from(path):
    with open(path, "wb") as file:
        file.write(b"\xc3" * 4096)  # `ret`: what a library's code would be
    fd = os.open(path, os.O_RDONLY)
    try:
        mmap.mmap(fd, 4096, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_EXEC).close()
    finally:
        os.close(fd)


def _many(folder, count=20000):
    os.mkdir(folder)
    for index in range(count):
        open(os.path.join(folder, str(index)), "w").close()


def _reserve(size=64 << 30):
    mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ).close()  # costs page tables once touched


def _open_many(count=2000):
    files = []
    try:
        for _ in range(count):
            files.append(open(__file__, "rb"))
    finally:
        for file in files:
            file.close()


def _writable_mounts(scratch):
    """The mount points writable in this child but its scratch folder, the devices and /proc (its
    own, where its PID namespace holds): /sys's cgroup hierarchies were, under a read-only /sys."""
    with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as table:
        mounts = [(line.split()[4], line.split()[5].split(",")) for line in table]
    return sorted(point for point, options in mounts if "rw" in options
                  and point != "/proc" and not point.startswith(("/dev/", scratch)))


def _unix_sockets():
    """The paths of the unix sockets this child's /proc/net/unix lists (its network namespace's), or
    why it could not be read."""
    try:
        with open("/proc/net/unix", encoding="utf-8", errors="replace") as table:
            return sorted(fields[7] for fields in (line.split() for line in table.readlines()[1:]) if len(fields) > 7)
    except OSError as error:
        return f"unreadable: {error.strerror}"


def probe():
    scratch = tempfile.gettempdir()
    return {
        "writable mounts": _writable_mounts(scratch),
        "unix sockets": _unix_sockets(),
        "read the answer key by path": _attempt(lambda: _read(KEY)),
        "read the answer key by dir_fd": _attempt(_by_dir_fd),
        "read the answer key by hard link": _attempt(lambda: _by_link(os.link)),
        "read the answer key by symlink": _attempt(lambda: _by_link(os.symlink)),
        "read the hidden suites": _attempt(lambda: _read(os.path.join(KIT, "grader", "catalog", "exercise3_scaling", "test_exercise3.py"))),
        "read the solutions": _attempt(lambda: _read(os.path.join(KIT, "solutions", "exercise3_scaling.py"))),
        "list the kit": _attempt(lambda: os.listdir(KIT)),
        "write beside its own file": _attempt(lambda: _write(os.path.join(os.path.dirname(__file__), "x.txt"))),
        "write in /tmp": _attempt(lambda: _write(f"/tmp/lumen-escape-{os.getpid()}")),
        "write in the kit": _attempt(lambda: _write(os.path.join(KIT, "grader", "x.py"))),
        "write in its scratch folder": _attempt(lambda: _write(os.path.join(scratch, "notes.txt"))),
        "read its own file": _attempt(lambda: _read(__file__)),
        "share memory through /dev/zero": _attempt(lambda: _share("/dev/zero")),
        "share memory through a file": _attempt(lambda: _share(os.path.join(scratch, "shared"))),
        "write at the root of its file system": _attempt(lambda: _write(f"/lumen-escape-{os.getpid()}")),
        "map a file of its scratch folder to run": _attempt(lambda: _run_from(os.path.join(scratch, "code.so"))),
        "make 20000 empty files in its scratch folder": _attempt(lambda: _many(os.path.join(scratch, "many"))),
        "reserve 64 GiB of address space": _attempt(_reserve),
        "hold 2000 open files": _attempt(_open_many),
    }
