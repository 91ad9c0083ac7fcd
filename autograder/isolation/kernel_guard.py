"""The tamper guard's kernel side: runs inside the student's kernel, once, before any student code.

Never imported by the grader: :class:`autograder.isolation.tamper.InsertTamperGuards`
reads this file and puts its source in a locked set-up cell at the top of the
notebook, followed by one call, ``_hpml_guard_setup(CONF)``, whose ``CONF`` is
JSON data (the per-run token, the guarded cells, the watched
modules, the library folders) parsed by ``json.loads``; then the function is
deleted from the notebook's namespace.

Everything lives in the closure of ``_guard``; the only name left behind is a
random one in ``builtins``, which every test cell calls on its first line. The
guard uses its own references only (taken here, before student code runs), so
replacing ``getattr``, ``isinstance`` or ``sys.modules`` does not blind it.
What it checks and why: :mod:`autograder.isolation.tamper`. No ``from __future__``
import here: it would change how every later cell of the kernel compiles.
"""


def _hpml_guard_setup(CONF):
    import builtins as B
    import importlib as IL
    import importlib.util
    import os as OS
    import sys as S
    import types as T

    # the guard's own references to builtins: closure variables, not globals the notebook could shadow or patch
    (getattr, any, zip, set, range, list, isinstance, hasattr, type, len, str, dict, frozenset) = (
        B.getattr,
        B.any,
        B.zip,
        B.set,
        B.range,
        B.list,
        B.isinstance,
        B.hasattr,
        B.type,
        B.len,
        B.str,
        B.dict,
        B.frozenset,
    )
    KERNEL_OWNED_BUILTINS = frozenset(CONF["kernel_owned"])
    from IPython import get_ipython

    ip = get_ipython()
    token, cell_ids = CONF["token"], frozenset(CONF["cells"])
    cwd = OS.path.realpath(OS.getcwd())
    mods = S.modules
    sys_dict = S.__dict__
    b_dict = B.__dict__
    _get, _id, _type, _len, _str, _isinst, _sorted = dict.get, id, type, len, str, isinstance, sorted
    _startswith, _sep, _hasattr = str.startswith, OS.sep, hasattr
    _os_realpath, _real_cache = OS.path.realpath, {}

    def _realpath(path):  # cached: a file system walk per call would cost milliseconds per test cell
        real = _get(_real_cache, path)
        if real is None:
            real = _real_cache[path] = _os_realpath(path)
        return real

    FunctionType, BuiltinType = T.FunctionType, T.BuiltinFunctionType
    MethodType, ModuleType = T.MethodType, T.ModuleType
    getframe, gettrace, getprofile = S._getframe, S.gettrace, S.getprofile
    trace0, profile0 = gettrace(), getprofile()
    publish = ip.display_pub.publish

    class TamperingDetected(Exception):
        """Student code replaced something the tests rely on."""

    TamperingDetected.__module__ = "builtins"
    TamperingDetected.__qualname__ = "TamperingDetected"

    def _inside(path, folder):
        return path == folder or _startswith(path, folder.rstrip(_sep) + _sep)

    # install folders: the grader's, plus the kernel's own when it is not the submission folder
    libdirs = {top: list(dirs) for top, dirs in CONF["libdirs"].items()}
    for top in CONF["tops"]:
        try:
            spec = IL.util.find_spec(top)
        except Exception:
            spec = None
        if spec is not None and spec.submodule_search_locations:
            here = _realpath(list(spec.submodule_search_locations)[0])
            if not _inside(here, cwd) and here not in libdirs.get(top, []):
                libdirs.setdefault(top, []).append(here)

    def _watchable(v):
        return _isinst(v, (FunctionType, BuiltinType, MethodType, ModuleType, type)) or _type(v).__name__ in (
            "_ArrayFunctionDispatcher",
            "ufunc",
            "builtin_function_or_method",
            "method_descriptor",
        )

    def _code_of(v):
        for attr in ("__code__",):
            c = getattr(v, attr, None)
            if c is not None:
                return c
        impl = getattr(v, "_implementation", None)
        if impl is not None and _hasattr(impl, "__code__"):
            return impl.__code__
        func = getattr(v, "__func__", None)
        if func is not None and _hasattr(func, "__code__"):
            return func.__code__
        return None

    snap = []  # (module name, module, module dict, [(attr, obj, code, defaults, kwdefaults)])
    loaded = {}
    for name in CONF["modules"]:
        try:
            m = IL.import_module(name)
        except Exception:
            continue
        loaded[name] = m
        entries = []
        for attr, v in list(m.__dict__.items()):
            if attr in ("__builtins__", "__loader__", "__spec__") or not _watchable(v):
                continue
            if name == "builtins" and attr in KERNEL_OWNED_BUILTINS:
                continue
            entries.append(
                (
                    attr,
                    v,
                    getattr(v, "__code__", None),
                    getattr(v, "__defaults__", None),
                    getattr(v, "__kwdefaults__", None),
                )
            )
        snap.append((name, m, m.__dict__, entries))
    # the course package's own classes (hpml_lab_utils.timing.Timer, ...): a method replaced on the class
    # changes what every helper built on it measures, while the module's attribute still holds the same class
    class_snap = []  # (dotted class name, class, its members)
    for name, m, mdict, entries in snap:
        if name.split(".")[0] != "hpml_lab_utils":
            continue
        for attr, v, code, defaults, kwdefaults in entries:
            if _isinst(v, type) and getattr(v, "__module__", None) == name:
                class_snap.append((name + "." + attr, v, dict(v.__dict__)))
    builtins_dict = b_dict

    hook_lists = {
        "IPython input transformers (cleanup)": ip.input_transformers_cleanup,
        "IPython input transformers (post)": ip.input_transformers_post,
        "IPython AST transformers": ip.ast_transformers,
        "IPython line transforms": ip.input_transformer_manager.line_transforms,
        "IPython token transformers": ip.input_transformer_manager.token_transformers,
    }
    hook_snap = {k: (v, list(v)) for k, v in hook_lists.items()}
    itm, compiler = ip.input_transformer_manager, ip.compile
    ip_dict, ip_type = ip.__dict__, type(ip)
    shell_methods = [
        "run_cell",
        "run_cell_async",
        "_run_cell",
        "run_ast_nodes",
        "run_code",
        "transform_cell",
        "transform_ast",
        "should_run_async",
        "showtraceback",
        "_showtraceback",
        "showsyntaxerror",
        "ex",
        "ev",
        "safe_execfile",
    ]

    def _lookup(cls, name):
        for k in cls.__mro__:
            if name in k.__dict__:
                return k.__dict__[name]
        return None

    shell_snap = {n: (_get(ip_dict, n), _lookup(ip_type, n)) for n in shell_methods}
    compiler_type = type(compiler)
    compiler_snap = {n: _lookup(compiler_type, n) for n in ("__call__", "ast_parse", "cache", "reset_compiler_flags")}
    itm_type = type(itm)
    itm_snap = {n: _lookup(itm_type, n) for n in ("transform_cell", "do_token_transforms", "do_one_token_transform")}
    events = ip.events
    callbacks = events.callbacks
    cb_snap = {e: list(cbs) for e, cbs in callbacks.items()}
    trusted = [d for d in (CONF["trusted_dirs"]) if d]

    def _trusted_callback(cb):
        code = _code_of(cb) or _code_of(getattr(cb, "func", None))
        if code is None:
            return False
        path = _realpath(code.co_filename)
        return any(_inside(path, d) for d in trusted)

    library_roots = [d for d in CONF["library_roots"] if d]
    key_targets = frozenset(CONF["targets"])

    def _from_library(v):
        """True when v's code lives in installed code (not in the notebook or its folder)."""
        code = _code_of(v)
        if code is None:
            call = getattr(_type(v), "__call__", None)
            code = _code_of(call) if call is not None else None
        if code is None:
            return False
        return _installed(code.co_filename)

    def _installed(filename):
        """True when a file lives in installed code: a library root, not the notebook's folder."""
        path = _realpath(filename)
        return not _inside(path, cwd) and any(_inside(path, d) for d in library_roots)

    def _library_submodule(parent, attr, v):
        """v is submodule ``parent.attr`` of installed code, bound by its import (Python sets the attribute:
        ``from numba.types import X`` puts numba's redirect module in place of ``numba.types``)."""
        if not _isinst(v, ModuleType) or _get(mods, parent + "." + attr) is not v:
            return False
        mfile = getattr(v, "__file__", None)
        if not mfile:
            return False
        return _installed(mfile)

    def _provenance(dotted):
        parts = dotted.split(".")
        for i in range(_len(parts) - 1, 0, -1):
            mname = ".".join(parts[:i])
            m = _get(mods, mname)
            if m is not None:
                break
        else:
            return None
        if i != _len(parts) - 1:
            return None  # attribute of a submodule that is not imported yet
        top = parts[0]
        where = libdirs.get(top)
        mfile = getattr(m, "__file__", None)
        if mfile and where and not any(_inside(_realpath(mfile), w) for w in where):
            return "sys.modules['" + mname + "'] is not the installed " + mname
        v = _get(getattr(m, "__dict__", {}), parts[-1])
        if v is None:
            return None
        code = _code_of(v)
        if code is None:
            if _isinst(v, BuiltinType) or _type(v).__name__ in ("ufunc", "builtin_function_or_method"):
                return None
            call = getattr(_type(v), "__call__", None)
            code = _code_of(call) if call is not None else None
            if code is None:
                return None
        if where and not any(_inside(_realpath(code.co_filename), w) for w in where):
            return dotted + " was replaced"
        return None

    def _check(free):
        found = []
        add = found.append
        if _get(sys_dict, "modules") is not mods:
            add("sys.modules was replaced")
        for name, m, mdict, entries in snap:
            if name != "builtins" and _get(mods, name) is not m:
                add("sys.modules['" + name + "'] was replaced")
            if m.__dict__ is not mdict:
                add(name + " was replaced")
                continue
            for attr, v, code, defaults, kwdefaults in entries:
                cur = _get(mdict, attr, _check)
                if cur is not v:
                    if (
                        cur is not _check
                        and name + "." + attr not in key_targets
                        and (_from_library(cur) or _library_submodule(name, attr, cur))
                    ):
                        continue  # re-bound by installed library code, e.g. torch._dynamo's wrappers
                    add(name + "." + attr + (" was deleted" if cur is _check else " was replaced"))
                elif code is not None and (
                    getattr(v, "__code__", None) is not code
                    or getattr(v, "__defaults__", None) is not defaults
                    or getattr(v, "__kwdefaults__", None) is not kwdefaults
                ):
                    add(name + "." + attr + " was modified (code or defaults)")
        for dotted, cls, members in class_snap:
            now = cls.__dict__
            for attr, v in members.items():
                cur = now.get(attr, _check)
                if cur is not v:
                    add(dotted + "." + attr + (" was deleted" if cur is _check else " was replaced"))
            for attr in now:
                if attr not in members:
                    add(dotted + "." + attr + " was added")
        if _get(mods, "builtins") is not B or _get(sys_dict, "modules") is not mods:
            add("builtins module was replaced")
        frame = getframe(2)
        if frame.f_builtins is not builtins_dict:
            add("__builtins__ of the notebook was replaced")
        g = frame.f_globals
        for n in free:
            if (
                n in g
                and n in builtins_dict
                and _get(g, n) is not _get(builtins_dict, n)
                and not _from_library(_get(g, n))
            ):  # IPython puts its own `open` in the namespace
                add("builtins." + n + " was shadowed by a global of the notebook")
        for dotted in CONF["targets"]:
            problem = _provenance(dotted)
            if problem:
                add(problem)
        for label, (lst, items) in hook_snap.items():
            if _len(lst) != _len(items) or any(a is not b for a, b in zip(lst, items)):
                add(label + " were changed")
        if (
            ip.input_transformers_cleanup is not hook_snap["IPython input transformers (cleanup)"][0]
            or ip.ast_transformers is not hook_snap["IPython AST transformers"][0]
            or ip.input_transformers_post is not hook_snap["IPython input transformers (post)"][0]
        ):
            add("IPython transformer lists were replaced")
        if ip.input_transformer_manager is not itm or ip.compile is not compiler or type(ip) is not ip_type:
            add("the IPython shell's input machinery was replaced")
        for n, (own, v) in shell_snap.items():
            if _get(ip_dict, n) is not own or _lookup(ip_type, n) is not v:
                add("IPython shell method " + n + " was replaced")
        for n, v in compiler_snap.items():
            if _lookup(type(compiler), n) is not v or n in getattr(compiler, "__dict__", {}):
                add("IPython compiler method " + n + " was replaced")
        for n, v in itm_snap.items():
            if _lookup(type(itm), n) is not v or n in getattr(itm, "__dict__", {}):
                add("IPython transformer manager method " + n + " was replaced")
        if ip.events is not events or events.callbacks is not callbacks:
            add("IPython event callbacks were replaced")
        else:
            for e, cbs in callbacks.items():
                known = _get(cb_snap, e, [])
                for cb in cbs:
                    if not any(cb is k or cb == k for k in known) and not _trusted_callback(cb):
                        add("an IPython " + e + " callback was registered")
                        break
        if gettrace() is not trace0:
            add("sys.settrace was used (a trace function is active)")
        if getprofile() is not profile0:
            add("sys.setprofile was used (a profile function is active)")
        if _get(sys_dict, "settrace") is None or _get(sys_dict, "gettrace") is not gettrace:
            add("sys.gettrace was replaced")
        seen, unique = set(), []
        for f in found:
            if f not in seen:
                seen.add(f)
                unique.append(f)
        return unique

    def _guard(cell_id, free=(), nonce=""):
        # nonce: this cell's own, written into its guard line by the grader; no secret lives in the kernel
        if cell_id not in cell_ids:
            raise TamperingDetected("the tamper guard was called from outside a test cell")
        found = _check(free)
        verdict = "tampered" if found else "ok"
        publish({CONF["mime"]: {"cell": cell_id, "verdict": verdict, "found": found, "nonce": nonce}}, metadata={})
        if found:
            raise TamperingDetected("; ".join(found))

    b_dict[token] = _guard
    # the set-up cell's source names the guard: keep it out of the input history
    hm = ip.history_manager
    for hist in (hm.input_hist_parsed, hm.input_hist_raw):
        if hist:
            hist[-1] = ""
    for k in ("_i", "_ii", "_iii", "_i" + str(ip.execution_count)):
        if k in ip.user_ns:
            ip.user_ns[k] = ""
    try:
        hm.db_input_cache.clear()
    except Exception:
        pass
    bad = [p for n in CONF["targets"] for p in [_provenance(n)] if p]
    if bad:
        raise TamperingDetected("; ".join(bad))
