"""The child's confinement by the kernel: what it may read, where it may write, and as whom.

Before any student byte runs, a child keeps only what it needs: the Python runtime and the
installed libraries (read and run), its own submission file (read) and a private scratch folder
(read and write). The kit (`grader/`, `lumen_ref/`, `solutions/`, the hidden suites), instructor
suites, other students' folders, the class folder and the gradebook are out of its reach. The
strongest mechanisms the machine offers are used, each decided at run time:

- started as root (Gradescope's container, most CI): a mount namespace whose root is a fresh
  tmpfs holding read-only bind mounts of the allowed trees only (every other tree simply does not
  exist there), the forbidden trees inside them covered, a size-limited tmpfs as scratch; then
  the capabilities' bounding set emptied and a drop to an unprivileged uid/gid;
- Landlock (Linux >= 5.13, any user): the same allow-list as access rights, with no REFER right
  (hard links and renames out of a tree fail), no TCP, and on ABI 6 no signals or abstract
  sockets out of the child;
- a PID namespace for the zygote and its children (`namespaces`: as root, or as a user in a user
  namespace of its own where the kernel lets users make one), and in each child's private root a
  /proc of that namespace: the grader, the batch, the classmates' graders and children are not
  there to read command lines or environments from; as a user the user namespace also lets each
  child build the same private root as root does (then it gives up every capability);
- always: PR_SET_NO_NEW_PRIVS and PR_SET_PDEATHSIG (the child dies with its parent), then the
  seccomp filter of `grader.sandbox.child` as a second layer.

`plan` runs once, in the judge; `confine` runs in each child and returns its `Layer`s, each
saying whether it held and whether it confines the child's files by the kernel. `level_of`
computes the level from them: "kernel" when every layer tried held and one of them confines files
by the kernel (Landlock, the private mount namespace); "process" otherwise: only the rules and limits
of the child's own process remain (macOS, Windows, old kernels), or a layer this machine should have
given failed (a container that refuses namespaces, users barred from user namespaces), and the child
might learn or reach what that layer hides.
"""

import contextlib
import ctypes
import glob
import os
import platform
import re
import signal
import stat
import sys
from typing import NamedTuple

KERNEL, PROCESS = "kernel", "process"


class Layer(NamedTuple):
    """One layer of a child's confinement, as applying it went: what reports call it, whether it
    held, and whether it confines the child's files by the kernel (what makes the level 'kernel')."""

    name: str
    held: bool
    files_by_kernel: bool = False


def level_of(layers):
    """The confinement level of a child with these layers: computed from them, never from their names."""
    every = all(layer.held for layer in layers)
    return KERNEL if every and any(layer.files_by_kernel for layer in layers) else PROCESS


def held(layers):
    """The names of the layers that held, as every report lists them."""
    return [layer.name for layer in layers if layer.held]
UNPRIVILEGED = 65534  # the uid and gid a root child drops to ("nobody"/"nogroup" on most systems)
SCRATCH_BYTES = 64 << 20  # the child's scratch tmpfs
SCRATCH_FILES = 4096  # files and folders it may hold: each costs kernel memory no size counts
ROOT_FILES = 1024  # the private root's own entries (mount points, links): it is read-only once built
_KIT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the folder holding grader/
_SYSTEM = ("/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", "/etc")
# read-only too: the C library, OpenMP and torch's kernels look things up there (without /proc every
# request of a child cost a millisecond more, without /sys a matrix product a quarter more), and no
# process's memory, files or environment is readable through them (the uid drop and Landlock keep
# the ptrace checks that guard those)
_KERNEL_VIEWS = ("/proc", "/sys")
_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")

# Landlock (include/uapi/linux/landlock.h)
_LL_CREATE_RULESET, _LL_ADD_RULE, _LL_RESTRICT_SELF = 444, 445, 446  # the same on x86-64 and arm64
_LL_VERSION, _LL_RULE_PATH_BENEATH = 1, 1
_FS = {"execute": 1 << 0, "write_file": 1 << 1, "read_file": 1 << 2, "read_dir": 1 << 3,
       "remove_dir": 1 << 4, "remove_file": 1 << 5, "make_char": 1 << 6, "make_dir": 1 << 7,
       "make_reg": 1 << 8, "make_sock": 1 << 9, "make_fifo": 1 << 10, "make_block": 1 << 11,
       "make_sym": 1 << 12, "refer": 1 << 13, "truncate": 1 << 14, "ioctl_dev": 1 << 15}
_FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1}  # later: all 16
_NET_TCP = 0b11  # bind and connect (ABI 4)
_SCOPE = 0b11  # abstract unix sockets and signals (ABI 6)
_READ = _FS["execute"] | _FS["read_file"] | _FS["read_dir"]
_WRITE = (_FS["read_file"] | _FS["read_dir"] | _FS["write_file"] | _FS["remove_dir"] | _FS["remove_file"]
          | _FS["make_dir"] | _FS["make_reg"] | _FS["make_sym"] | _FS["truncate"])  # never REFER
_FILE_RIGHTS = _FS["execute"] | _FS["write_file"] | _FS["read_file"] | _FS["truncate"] | _FS["ioctl_dev"]

# mounts, namespaces, prctl
CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWUSER, CLONE_NEWIPC = 0x00020000, 0x20000000, 0x10000000, 0x08000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP = 1, 38, 24
PR_GET_DUMPABLE, PR_SET_DUMPABLE = 3, 4
_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}

_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform == "linux" else None
OFF_ENV = "LUMEN_NO_KERNEL_CONTAINMENT"  # "1": no kernel layer (benchmarks measure their cost with it)


class Plan(NamedTuple):
    """What every child of one grading run may reach, decided once in the judge."""

    read: tuple  # files and folders to read and run (allowed trees, minus the forbidden ones inside)
    mounts: tuple  # trees bound read-only into a root child's private root
    covered: tuple  # forbidden trees inside `mounts`, covered there by empty ones
    devices: tuple  # device files the child may use
    landlock: int  # the kernel's Landlock ABI version (0: none)
    root: bool  # the judge runs as root: the child can build a private root and drop its uid
    drop_uid: bool  # ... and drops to UNPRIVILEGED in its private root (the trees are readable to it)
    drop_uid_host: bool  # ... or without one (the trees and the folders above them are)
    pid_ns: bool = False  # the zygote and its children live in a PID namespace of their own (`namespaces`)
    user_ns: bool = False  # ... and, not root, in a user namespace where a child can build a private root

    @property
    def nvidia(self):
        """Whether its children may use NVIDIA devices (CUDA's allowance: see `_cuda_allowance`)."""
        return uses_nvidia(self.devices)


def uses_nvidia(devices):
    return any(device.startswith("/dev/nvidia") for device in devices)


def _inside(path, root):
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _real(paths):
    """Existing paths, resolved, without duplicates or paths inside another one of them."""
    found = sorted({os.path.realpath(p) for p in paths if p and os.path.lexists(p)})
    return tuple(p for p in found if os.path.exists(p) and not any(q != p and _inside(p, q) for q in found))


def kit_secrets():
    """The trees of this kit that no child may read: its packages (the grader and its suites, the
    answer key), the solutions and the project's tests, wherever the kit is installed."""
    return [os.path.join(_KIT, name) for name in ("grader", "lumen_ref", "solutions", "tests")]


def _loaded_libraries():
    """Folders of the shared libraries this process has mapped (torch's, the C library, ...)."""
    folders = set()
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split(maxsplit=5)[-1].strip()
                if path.startswith("/") and ".so" in os.path.basename(path) and os.path.isfile(path):
                    folders.add(os.path.dirname(path))
    except OSError:
        pass
    return folders


def _python_trees():
    """The interpreter's trees and the installed libraries' folders (never the current folder or a
    script's folder, which `sys.path` may also hold)."""
    import site

    prefixes = {sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix}
    trees = prefixes | {os.path.dirname(os.path.realpath(sys.executable))}
    trees.update(site.getsitepackages() + [site.getusersitepackages()])
    trees.update(p for p in sys.path if os.path.isabs(p) and (
        os.path.basename(p) in ("site-packages", "dist-packages") or any(_inside(p, q) for q in prefixes)))
    return trees


def _subtract(allowed, forbidden):
    """The allowed trees with the forbidden ones cut out: a tree holding a forbidden one is
    replaced by its entries, recursively (Landlock can only grant, never take back)."""
    result = []
    for tree in allowed:
        if any(_inside(tree, f) for f in forbidden):
            continue
        if not any(_inside(f, tree) and f != tree for f in forbidden) or not os.path.isdir(tree):
            result.append(tree)
            continue
        try:
            entries = [os.path.join(tree, name) for name in os.listdir(tree)]
        except OSError:
            continue
        result += _subtract([entry for entry in entries if not os.path.islink(entry)], forbidden)
    return result


def landlock_abi():
    """The kernel's Landlock ABI version, 0 where there is none (or it is disabled)."""
    if _LIBC is None or platform.machine() not in _PIVOT_ROOT:
        return 0
    version = _LIBC.syscall(_LL_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_LL_VERSION))
    return max(int(version), 0)


def user_namespaces():
    """Whether this user may make a user namespace that holds capabilities (Linux's own switch,
    Debian's, and Ubuntu's AppArmor restriction, which leaves such namespaces without any)."""
    if sys.platform != "linux":
        return False
    if os.geteuid() == 0:
        return True
    switches = {"/proc/sys/user/max_user_namespaces": lambda v: int(v) > 0,
                "/proc/sys/kernel/unprivileged_userns_clone": lambda v: v != "0",
                "/proc/sys/kernel/apparmor_restrict_unprivileged_userns": lambda v: v != "1"}
    for path, allows in switches.items():
        try:
            with open(path) as switch:
                if not allows(switch.read().strip()):
                    return False
        except (OSError, ValueError):
            continue
    return True


def expected_level():
    """The level children will get here, as far as can be told without starting one: root's private
    root and PID namespace, or a user's Landlock and user namespace."""
    if sys.platform == "linux" and os.geteuid() == 0:
        return KERNEL
    return KERNEL if landlock_abi() and user_namespaces() else PROCESS


def namespaces(plan):
    """In the zygote, before its first child: move its children into a PID namespace of their own
    and an IPC namespace (and, not root, a user namespace mapping this user to itself, where they may mount). This
    process stays outside as a waiter that ends with the zygote's exit status; the zygote goes on
    in a new process, PID 1 of the namespace (when it ends, so does every process in it), and gets
    the plan its children follow. Where the kernel refuses, this process stays the zygote and the
    plan says so (the children's layers then report the PID namespace as not held)."""
    if _LIBC is None or os.environ.get(OFF_ENV) == "1":
        return plan
    if not plan.root and not _own_user_namespace():
        return plan
    # an IPC namespace too, where the kernel allows it: a System V segment (CUDA's allowance has
    # shmget) then dies with the run's last process instead of outliving the grader
    if _LIBC.unshare(CLONE_NEWPID | CLONE_NEWIPC) != 0 and _LIBC.unshare(CLONE_NEWPID) != 0:
        return plan
    pid = os.fork()
    if pid:  # the waiter: it holds nothing of the judge's (its socket to the zygote least of all)
        os.closerange(3, 1 << 16)
        _, status = os.waitpid(pid, 0)
        os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
    _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # the zygote dies with the waiter
    return plan._replace(pid_ns=True, user_ns=not plan.root)


def _own_user_namespace():
    """Enter a user namespace that maps this user's uid and gid to themselves; whether it did. If
    the kernel refuses the map, this process is left in a namespace without one, where it is still
    this user to the kernel and makes no further namespace."""
    uid, gid = os.getuid(), os.getgid()
    if _LIBC.unshare(CLONE_NEWUSER) != 0:
        return False
    dumpable = _LIBC.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0)
    _LIBC.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)  # a process writes its own maps only while it is dumpable
    try:
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w") as file:
                file.write(text)
        return True
    except OSError:
        return False
    finally:
        _LIBC.prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0)


def _traversable(path, uid, from_top=True):
    """Whether `uid` (not the owner, no shared group) can reach and read `path`: from "/", or
    (from_top=False) once at `path` (in a private root, whose folders above it are open)."""
    parts, current = os.path.realpath(path).split(os.sep)[1:], os.sep
    if not from_top:
        parts, current = parts[-1:], os.path.dirname(os.path.realpath(path))
    for part in parts:
        current = os.path.join(current, part)
        try:
            info = os.stat(current)
        except OSError:
            return False
        needed = stat.S_IXOTH if stat.S_ISDIR(info.st_mode) else stat.S_IROTH
        if info.st_uid != uid and not info.st_mode & needed:
            return False
    return True


def plan(forbidden=(), devices=("cpu", "cuda")):
    """The confinement of a run's children: `forbidden` adds trees to the kit's secrets (the
    instructor's suites, the class folder, ...); `devices` the devices that may be graded ("cuda":
    the GPU's device files too, where there are some)."""
    forbidden = _real([*kit_secrets(), *forbidden, *os.environ.get("LUMEN_CONFIDENTIAL", "").split(os.pathsep)])
    mounts = _real([*_SYSTEM, *_KERNEL_VIEWS, *_python_trees(), *_loaded_libraries()])
    mounts = tuple(m for m in mounts if not any(_inside(m, f) for f in forbidden))
    device_files = list(_DEVICES)
    gpu = glob.glob("/dev/nvidia*")  # known before the devices are (asking torch would start CUDA)
    if gpu and "cuda" in devices:
        device_files += gpu + glob.glob("/dev/dri/*")
    root = sys.platform == "linux" and os.geteuid() == 0
    return Plan(read=tuple(_subtract(list(mounts), forbidden)), mounts=mounts,
                covered=tuple(f for f in forbidden if any(_inside(f, m) for m in mounts)),
                devices=tuple(d for d in device_files if os.path.exists(d)), landlock=landlock_abi(),
                root=root, drop_uid=root and all(_traversable(m, UNPRIVILEGED, from_top=False) for m in mounts),
                drop_uid_host=root and all(_traversable(m, UNPRIVILEGED) for m in mounts))


# -- in the child -------------------------------------------------------------------------------


def _check(result, what):
    if result < 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")
    return result


def _mount(source, target, fstype=None, flags=0, data=None):
    _check(_LIBC.mount(source and os.fsencode(source), os.fsencode(target), fstype and fstype.encode(),
                       ctypes.c_ulong(flags), data and data.encode()), f"mount {target}")


def _private_root(plan, scratch, readable, owner, scratch_bytes=SCRATCH_BYTES):
    """A mount namespace whose root holds only the allowed trees (read-only), the readable files,
    the devices and a tmpfs scratch of `scratch_bytes` at `scratch` owned by `owner`; the forbidden
    trees inside them covered; in a PID namespace (plan.pid_ns), a /proc of its own that shows no
    process outside it."""
    _check(_LIBC.unshare(CLONE_NEWNS), "unshare")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    new = scratch  # an empty folder made for this child: the new root is mounted on it
    _mount("tmpfs", new, "tmpfs", MS_NOSUID | MS_NODEV, f"mode=0755,size=1m,nr_inodes={ROOT_FILES}")
    for tree in plan.mounts:
        if tree != "/proc" or not plan.pid_ns or not _own_proc(new + tree):
            _bind(tree, new + tree, read_only=tree != "/proc" or not plan.nvidia)
    for file in (*readable, *plan.devices):
        if os.path.exists(file):
            _bind(file, new + file, read_only=file in readable, devices=file in plan.devices)
    for tree in plan.covered:
        if os.path.isdir(new + tree):
            _mount("tmpfs", new + tree, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "mode=0555,size=4k")
        elif os.path.exists(new + tree):
            _mount("/dev/null", new + tree, None, MS_BIND)
    for link in _SYSTEM:  # /lib -> usr/lib on merged-/usr systems: the same link in the new root
        if os.path.islink(link) and not os.path.lexists(new + link):
            os.symlink(os.readlink(link), new + link)
    os.makedirs(new + scratch, exist_ok=True)
    # no code runs from it: a library written there cannot be mapped to run (round 49's a02)
    _mount("tmpfs", new + scratch, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
           f"mode=0700,uid={owner},gid={owner},size={scratch_bytes},nr_inodes={SCRATCH_FILES}")
    os.makedirs(new + "/.old")
    os.chdir(new)
    arch = _PIVOT_ROOT.get(platform.machine())
    if arch is not None and _LIBC.syscall(arch, b".", b".old") == 0:
        _check(_LIBC.umount2(b"/.old", MNT_DETACH), "umount the old root")
        os.rmdir("/.old")
    else:
        os.chroot(new)  # no pivot_root: a chroot, which the child, without capabilities, cannot leave
    os.chdir("/")
    # the root itself read-only (a user's child owns it in its user namespace); the scratch stays writable
    _mount(None, "/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _own_network():
    """Move this child into a network namespace of its own, empty (a loopback, down), so that /proc/net
    shows none of the host's sockets (round 27's a02: the paths of unix sockets in other users' private
    folders, every listening port); whether it did. Where the kernel refuses, the host's stay in view,
    as before: names to read, not a way out (seccomp and Landlock keep sockets closed)."""
    return _LIBC.unshare(CLONE_NEWNET) == 0


def _own_proc(target):
    """Mount a /proc of this process's PID namespace at `target`, while the host's is still in view
    (a user namespace may mount one only then, and only where the host's is not partly covered, as
    some containers cover it); whether it did (if not, the host's is bound instead, and the layer
    `pid-namespace` does not hold)."""
    os.makedirs(target, exist_ok=True)
    try:
        _mount("proc", target, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        return True
    except OSError:
        return False


def _bind(source, target, read_only, devices=False):
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if not os.path.exists(target):
            open(target, "w").close()
    _mount(source, target, None, MS_BIND | MS_REC)
    flags = MS_REMOUNT | MS_BIND | MS_NOSUID | (MS_RDONLY if read_only else 0) | (0 if devices else MS_NODEV)
    _mount(None, target, None, flags | _locked_flags(target))
    # read-only reaches every mount under the bind too (/sys's cgroup hierarchies: round 24), each
    # keeping the flags of its own that a user namespace's kernel refuses to see dropped; one that will
    # not be remounted is covered (and so are the mounts under it, gone from view)
    for point in _mounts_under(target) if read_only else ():
        if not os.path.lexists(point):
            continue
        try:
            _mount(None, point, None, flags | _locked_flags(point))
        except OSError:
            _mount("tmpfs", point, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "mode=0555,size=4k")


def _mounts_under(target):
    """The mount points below `target` in this mount namespace (/proc/self/mountinfo's fifth field,
    whose spaces and the like are written in octal)."""
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as table:
        points = [re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), line.split()[4]) for line in table]
    return [point for point in dict.fromkeys(points) if point.startswith(target.rstrip("/") + "/")]


def _locked_flags(point):
    """The flags of the mount at `point` that a remount must keep: no exec, and how access times are kept."""
    have = os.statvfs(point).f_flag
    return sum(flag for stat_flag, flag in ((os.ST_NOEXEC, MS_NOEXEC), (os.ST_NOATIME, MS_NOATIME),
                                            (os.ST_NODIRATIME, MS_NODIRATIME), (os.ST_RELATIME, MS_RELATIME))
               if have & stat_flag)


def _drop_privileges(drop_uid, user_ns=False):
    """Empty the bounding set, then (drop_uid) become UNPRIVILEGED: no groups, gid, uid (all three
    ids); otherwise stay uid 0 without a capability (the seccomp layer drops the rest); in a user
    namespace (`user_ns`: this user's own uid, every capability there) give up every capability
    now, or the child could undo its private root."""
    cap = 0
    while _LIBC.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0:
        cap += 1
    if drop_uid:
        os.setgroups([])
        os.setresgid(UNPRIVILEGED, UNPRIVILEGED, UNPRIVILEGED)
        os.setresuid(UNPRIVILEGED, UNPRIVILEGED, UNPRIVILEGED)
    if user_ns:
        header = (ctypes.c_uint32 * 2)(_CAPABILITY_VERSION_3, 0)
        _check(_LIBC.capset(header, (ctypes.c_uint32 * 6)()), "capset")  # effective, permitted, inheritable


_CAPABILITY_VERSION_3 = 0x20080522


def _cuda_allowance(plan):
    """What NVIDIA's driver needs of the files of a child that uses CUDA: it names the threads it
    starts by writing /proc/self/task/<tid>/comm, and treats a refusal as fatal (CUDA error 304,
    "OS call failed"; driver 570 and later, as reported by other sandboxes). Those files belong to
    the process only while it is dumpable, which a uid change (and the judge's own setting, which
    a fork inherits) turns off; so a GPU child is made dumpable again, and Landlock lets it write
    under its own /proc/self/task only (`_landlock`). Its /proc is then writable (`_private_root`):
    Landlock and the files' owners keep the rest of it read-only; /proc/<pid>/mem of another child
    stays closed by Landlock's ptrace rule (a domain cannot reach a sibling's)."""
    if plan.nvidia:
        _LIBC.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
        with contextlib.suppress(OSError):  # held open for the child's life, so that the folder
            _OWN_TASKS.append(os.open("/proc/self/task", os.O_PATH | os.O_CLOEXEC))  # Landlock's rule names stays


_OWN_TASKS = []  # in a GPU child: a descriptor of its /proc/self/task (`_cuda_allowance`)


def _own_processes_only(plan):
    """Whether this child's /proc shows its PID namespace's processes only: it is in one
    (plan.pid_ns) and /proc/self names it by its pid there, not by the host's."""
    try:
        return plan.pid_ns and os.readlink("/proc/self") == str(os.getpid())
    except OSError:
        return False


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _landlock(plan, scratch, readable):
    """Restrict this process to the plan's trees (read, run), `readable` files (read) and
    `scratch` (read, write), with no REFER right anywhere, no TCP (ABI 4) and no signals or
    abstract sockets out of its domain (ABI 6)."""
    abi = plan.landlock
    handled = _FS_BY_ABI.get(abi, (1 << 16) - 1)
    attr = _RulesetAttr(handled, _NET_TCP if abi >= 4 else 0, _SCOPE if abi >= 6 else 0)
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    ruleset = _check(_LIBC.syscall(_LL_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size),
                                   ctypes.c_uint32(0)), "landlock_create_ruleset")
    try:
        rules = [(path, _READ) for path in plan.read] + [(path, _FS["read_file"]) for path in readable]
        rules += [(path, _FS["read_file"] | _FS["write_file"] | _FS["ioctl_dev"]) for path in plan.devices]
        rules.append((scratch, _WRITE))
        if plan.nvidia and _OWN_TASKS:  # this process's tasks, the threads CUDA starts later too
            rules.append((_OWN_TASKS[0], _FS["read_file"] | _FS["read_dir"] | _FS["write_file"] | _FS["truncate"]))
        for path, rights in rules:  # a path, or a descriptor already open
            try:
                fd = path if isinstance(path, int) else os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                if not stat.S_ISDIR(os.fstat(fd).st_mode):
                    rights &= _FILE_RIGHTS
                rule = _PathBeneath(rights & handled, fd)
                _check(_LIBC.syscall(_LL_ADD_RULE, ruleset, _LL_RULE_PATH_BENEATH, ctypes.byref(rule),
                                     ctypes.c_uint32(0)), f"landlock_add_rule {path}")
            finally:
                if fd != path:
                    os.close(fd)
        _check(_LIBC.syscall(_LL_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)), "landlock_restrict_self")
    finally:
        os.close(ruleset)


def confine(plan, scratch, readable=(), scratch_bytes=SCRATCH_BYTES):
    """Confine this child (before any student code): returns its `Layer`s (see `level_of`).

    `scratch`: an empty folder made for this child, its only writable place (in a private root, a
    tmpfs of `scratch_bytes`); `readable`: files it may read besides the runtime (its own submission)."""
    layers = []
    if plan is None or _LIBC is None:  # a spawned child (no zygote): only its own folder
        if scratch:
            os.chdir(scratch)
            os.environ.update(TMPDIR=scratch)
        return layers
    readable = tuple(os.path.realpath(p) for p in readable if os.path.isfile(p))
    parent = os.getppid()
    if os.environ.get(OFF_ENV) == "1":  # measuring what the kernel layers cost: the level says so
        plan = plan._replace(root=False, landlock=0)
    network = False
    if plan.root or plan.user_ns:
        network = _own_network()
        try:
            _private_root(plan, scratch, readable, owner=os.getuid() if plan.user_ns else
                          UNPRIVILEGED if plan.drop_uid else 0, scratch_bytes=scratch_bytes)
            layers.append(Layer("mount-namespace", True, files_by_kernel=True))
            drop_uid = plan.drop_uid
        except OSError:  # a container that refuses namespaces: the other layers remain
            layers.append(Layer("mount-namespace", False, files_by_kernel=True))
            os.chdir("/")
            drop_uid = plan.drop_uid_host
        drop_uid = drop_uid and plan.root
        _drop_privileges(drop_uid, user_ns=plan.user_ns)
        layers.append(Layer(f"uid {UNPRIVILEGED}" if drop_uid else "no capabilities", True))
    layers.append(Layer("pid-namespace", _own_processes_only(plan)))
    if network:  # named where it held; without it the child is as confined as before, so no lower level
        layers.append(Layer("network-namespace", True))
    _cuda_allowance(plan)  # after the uid change, which turns dumpable off
    _LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # after the uid change, which clears it
    if os.getppid() != parent:  # the parent died before that: follow it
        os._exit(1)
    os.chdir(scratch)
    os.environ.update(TMPDIR=scratch, HOME=scratch)
    import tempfile

    tempfile.tempdir = scratch
    if plan.landlock:
        try:
            _landlock(plan, scratch, readable)
            layers.append(Layer(f"landlock ABI {plan.landlock}", True, files_by_kernel=True))
        except OSError:
            layers.append(Layer(f"landlock ABI {plan.landlock}", False, files_by_kernel=True))
    return layers
