"""Reads what a Megatron-Bridge recipe function sets on its ConfigContainer, without running it.

From v0.6.0 Megatron-Bridge's performance presets are plain functions
(src/megatron/bridge/perf_recipes/<family>/<gpu>/*.py) that build a config from a model recipe and then
assign its fields: `cfg.model.expert_model_parallel_size = 8`, helpers such as
`_enable_hybridep_full_iteration_mxfp8(cfg)`, `cfg.comm_overlap = CommOverlapConfig(...)`. Running them
needs Megatron-Core, TransformerEngine and a GPU; reading them needs only their source. Reader follows
a function's statements in order:

- `X.section.field = value` records the field; `X.section = SomeConfig(k=v, ...)` replaces the
  section with the keywords given;
- a call to a function it can find (defined in the module or imported from megatron.bridge) is
  followed with its arguments bound, and its return value kept (a config built by a call it cannot
  follow, such as ConfigContainer(...), starts empty);
- apply_flex_dispatcher_backend(cfg.model, backend) sets the flex dispatcher with that backend (its
  GPU check, src/megatron/bridge/training/flex_dispatcher_backend.py, is left to the caller);
- a function the caller handles itself (Reader's `handlers`: name -> f(args, kwargs)) is not
  followed but handed its evaluated arguments;
- an `if` whose test is a comparison of values it knows (==, !=, is, in; `and` / `or` / `not` of
  such) runs the branch taken; any other `if` (or loop, with, try) that would assign one of the
  fields a caller reads (Reader's `fields`, FIELDS unless given) is an error, so a value it reports
  is never a guess; other statements (environment variables, logging) are skipped.

Values are Python constants, lists of them, names bound in the function, fields already set (also
through `getattr(cfg.section, "field", default)`, which reads as UNKNOWN, not the default, where the
field is not set: the real config has a value there), and comparisons of known values; anything else
reads as UNKNOWN. Imports from megatron.bridge are followed, relative ones (`from .module import f`
in a package) too."""
import ast

UNKNOWN = object()


class Config:
    """A ConfigContainer as far as the recipe's assignments say: section -> field -> value."""

    def __init__(self):
        self.sections = {}

    def section(self, name):
        return self.sections.setdefault(name, {})


class SectionRef:
    """`cfg.model` passed as a value (apply_flex_dispatcher_backend(cfg.model, ...))."""

    def __init__(self, config, name):
        self.config, self.name = config, name


class Return(Exception):
    def __init__(self, value):
        self.value = value


# The fields a caller reads (megatron_bridge_moe_presets.py), and the sections holding them.
FIELDS = {"tensor_model_parallel_size", "pipeline_model_parallel_size", "virtual_pipeline_model_parallel_size",
          "expert_model_parallel_size", "moe_token_dispatcher_type", "moe_flex_dispatcher_backend",
          "global_batch_size", "micro_batch_size", "overlap_moe_expert_parallel_comm", "model", "train",
          "comm_overlap", "cuda_graph_impl", "cuda_graph_scope", "cuda_graph_modules"}


def assigns_field(node, fields=FIELDS):
    """Whether NODE assigns one of FIELDS (an attribute of that name) anywhere inside it."""
    return any(isinstance(n, (ast.Assign, ast.AugAssign)) and any(
        isinstance(t, ast.Attribute) and t.attr in fields for t in
        (n.targets if isinstance(n, ast.Assign) else [n.target])) for n in ast.walk(node))


def known(value):
    """Whether VALUE is a plain value (not UNKNOWN, a config or a reference into one)."""
    if isinstance(value, list):
        return all(known(v) for v in value)
    return value is not UNKNOWN and not isinstance(value, (Config, SectionRef))


def compares(node):
    """Whether NODE is a comparison, or `and` / `or` / `not` of comparisons: the `if` tests Reader decides."""
    if isinstance(node, ast.BoolOp):
        return all(compares(v) for v in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return compares(node.operand)
    return isinstance(node, ast.Compare)


COMPARE = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Is: lambda a, b: a is b,
           ast.IsNot: lambda a, b: a is not b, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}


class Reader:
    def __init__(self, show, handlers=None, fields=None):
        self.show = show  # path -> source text, or raises
        self.handlers = handlers or {}
        self.fields = FIELDS if fields is None else set(fields)  # those an unevaluated `if` may not assign
        self.modules = {}

    def module(self, path):
        if path not in self.modules:
            tree = ast.parse(self.show(path))
            functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
            imports = {}
            # the package PATH is in (src/megatron/bridge/recipes/gpt_oss/__init__.py or .../gpt_oss/x.py:
            # megatron.bridge.recipes.gpt_oss), for relative imports
            package = path[len("src/"):].rsplit("/", 1)[0].split("/") if path.startswith("src/") else []
            for n in tree.body:
                if not isinstance(n, ast.ImportFrom):
                    continue
                module = n.module
                if n.level:
                    if n.level > len(package):
                        continue
                    module = ".".join(package[:len(package) - n.level + 1] + ([n.module] if n.module else []))
                if module and module.startswith("megatron.bridge"):
                    for alias in n.names:
                        imports[alias.asname or alias.name] = (module, alias.name)
            self.modules[path] = (functions, imports)
        return self.modules[path]

    def functions(self, path):
        return list(self.module(path)[0])

    def resolve(self, path, name):
        """(path, function) of NAME as seen from PATH, following imports within megatron.bridge."""
        for _ in range(8):
            functions, imports = self.module(path)
            if name in functions:
                return path, functions[name]
            if name not in imports:
                return None
            module, name = imports[name]
            base = "src/" + module.replace(".", "/")
            for candidate in (base + ".py", base + "/__init__.py"):
                try:
                    self.module(candidate)
                    path = candidate
                    break
                except Exception:
                    continue
            else:
                return None
        return None

    def call(self, path, name, args=(), kwargs=None):
        found = self.resolve(path, name)
        if found is None:
            return UNKNOWN
        path, function = found
        env = {}
        positional = function.args.posonlyargs + function.args.args
        defaults = function.args.defaults
        for parameter, default in zip(positional[len(positional) - len(defaults):], defaults):
            env[parameter.arg] = self.value(path, default, {})
        for parameter, default in zip(function.args.kwonlyargs, function.args.kw_defaults):
            if default is not None:
                env[parameter.arg] = self.value(path, default, {})
        for parameter, value in zip(positional, args):
            env[parameter.arg] = value
        env.update(kwargs or {})
        try:
            self.run(path, function.body, env)
        except Return as r:
            return r.value
        return None

    def run(self, path, body, env):
        for statement in body:
            if isinstance(statement, ast.Return):
                raise Return(self.value(path, statement.value, env) if statement.value else None)
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
                self.value(path, statement.value, env)
            elif isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                self.assign(path, statement.targets[0], self.value(path, statement.value, env), env)
            elif (isinstance(statement, ast.If) and compares(statement.test)
                  and known(test := self.value(path, statement.test, env))):
                self.run(path, statement.body if test else statement.orelse, env)
            elif isinstance(statement, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
                if assigns_field(statement, self.fields):
                    raise ValueError(f"{path}:{statement.lineno}: a conditional assignment to the config")

    def assign(self, path, target, value, env):
        if isinstance(target, ast.Name):
            env[target.id] = Config() if value is UNKNOWN else value
            return
        if not isinstance(target, ast.Attribute):
            return
        owner = target.value
        if isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name):
            config = env.get(owner.value.id)
            if isinstance(config, Config):  # cfg.section.field = value
                config.section(owner.attr)[target.attr] = value
        elif isinstance(owner, ast.Name) and isinstance(env.get(owner.id), Config):
            # cfg.section = SectionConfig(field=value, ...): the section anew, with the keywords given
            env[owner.id].sections[target.attr] = value if isinstance(value, dict) else {}

    def value(self, path, node, env):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return env.get(node.id, UNKNOWN)
        if isinstance(node, (ast.List, ast.Tuple)):
            return [self.value(path, n, env) for n in node.elts]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            v = self.value(path, node.operand, env)
            return -v if isinstance(v, (int, float)) else UNKNOWN
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            v = self.value(path, node.operand, env)
            return (not v) if known(v) else UNKNOWN
        if isinstance(node, ast.Compare):
            left = self.value(path, node.left, env)
            result = True
            for op, right_node in zip(node.ops, node.comparators):
                right = self.value(path, right_node, env)
                if type(op) not in COMPARE or not known(left) or not known(right):
                    return UNKNOWN
                try:
                    result = result and COMPARE[type(op)](left, right)
                except TypeError:
                    return UNKNOWN
                left = right
            return result
        if isinstance(node, ast.BoolOp):  # Python's: the first operand that decides, unless one before is unknown
            for operand in node.values[:-1]:
                v = self.value(path, operand, env)
                if not known(v):
                    return UNKNOWN
                if bool(v) == isinstance(node.op, ast.Or):
                    return v
            return self.value(path, node.values[-1], env)
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and isinstance(env.get(node.value.id), Config):
                return SectionRef(env[node.value.id], node.attr)
            owner = self.value(path, node.value, env)
            if isinstance(owner, SectionRef):
                return owner.config.section(owner.name).get(node.attr, UNKNOWN)
            return UNKNOWN
        if isinstance(node, ast.Call):
            args = [self.value(path, a, env) for a in node.args]
            kwargs = {k.arg: self.value(path, k.value, env) for k in node.keywords if k.arg}
            if not isinstance(node.func, ast.Name):
                return UNKNOWN
            name = node.func.id
            if name == "getattr" and len(args) >= 2 and isinstance(args[0], SectionRef) and isinstance(args[1], str):
                return args[0].config.section(args[0].name).get(args[1], UNKNOWN)
            if name in self.handlers:
                self.handlers[name](args, kwargs)
                return None
            if name == "apply_flex_dispatcher_backend" and args and isinstance(args[0], SectionRef):
                backend = args[1] if len(args) > 1 else kwargs.get("moe_flex_dispatcher_backend")
                if backend in ("deepep", "hybridep"):
                    section = args[0].config.section(args[0].name)
                    section["moe_token_dispatcher_type"] = "flex"
                    section["moe_flex_dispatcher_backend"] = backend
                return None
            if name.endswith("Config") and not args and self.resolve(path, name) is None:
                return kwargs  # a section's dataclass built from keywords
            return self.call(path, name, args, kwargs)
        return UNKNOWN
