"""What an import did: per file, the actions made, the targets that found
no bone or material, which bones were baked and why.  Warnings are not
failures; a failed file never stops the others."""


class FileReport:
    def __init__(self, path):
        self.path = str(path)
        self.format = None
        self.compression = None
        self.error = None
        self.actions = []        # action names
        self.owners = []         # armature / material names animated
        self.unmatched = []      # targets (as text) with no bone or material
        self.exact = []          # bone names written channel for channel
        self.baked = []          # (bone name, reason)
        self.missing_materials = []
        self.notes = []
        self.built = None        # a model file: what was built (text)

    @property
    def ok(self):
        return self.error is None

    @property
    def name(self):
        return self.path.replace("\\", "/").rsplit("/", 1)[-1]

    def summary(self):
        if not self.ok:
            return f"{self.name}: FAILED: {self.error}"
        what = self.format or "?"
        if self.compression:
            what += f" in {self.compression}"
        made = self.built if self.built and not self.actions else (', '.join(self.actions) or 'no action')
        parts = [f"{self.name}: {what} -> {made}"]
        if self.owners:
            parts.append("on " + ", ".join(self.owners))
        if self.exact or self.baked:
            parts.append(f"{len(self.exact)} exact, {len(self.baked)} baked bones")
        if self.unmatched:
            parts.append(f"{len(self.unmatched)} unmatched")
        if self.missing_materials:
            parts.append(f"{len(self.missing_materials)} missing materials")
        return "; ".join(parts)

    def warnings(self):
        out = []
        if self.unmatched:
            out.append(f"{self.name}: {len(self.unmatched)} target(s) found no bone or material: "
                       f"{', '.join(self.unmatched)}")
        if self.missing_materials:
            out.append(f"{self.name}: material(s) not found: {', '.join(self.missing_materials)}")
        if self.baked:
            reasons = {}
            for bone, reason in self.baked:
                reasons.setdefault(reason, []).append(bone)
            for reason, bones in reasons.items():
                out.append(f"{self.name}: baked {len(bones)} bone(s) ({reason}): {', '.join(bones)}")
        out.extend(f"{self.name}: {n}" for n in self.notes)
        return out


class ImportReport:
    def __init__(self):
        self.files = []

    def add(self, path):
        fr = FileReport(path)
        self.files.append(fr)
        return fr

    @property
    def succeeded(self):
        return [f for f in self.files if f.ok]

    @property
    def failed(self):
        return [f for f in self.files if not f.ok]

    def summary(self):
        n_actions = sum(len(f.actions) for f in self.files)
        s = f"Imported {len(self.succeeded)} of {len(self.files)} file(s), {n_actions} action(s)"
        if self.failed:
            s += f"; {len(self.failed)} failed"
        return s

    def lines(self):
        out = [self.summary()]
        for f in self.files:
            out.append("  " + f.summary())
            out.extend("    " + w for w in f.warnings())
        return out

    def text(self):
        return "\n".join(self.lines())

    def emit(self, operator):
        """Operator reports: one line per problem, then the summary."""
        for f in self.files:
            if not f.ok:
                operator.report({"ERROR"}, f.summary())
            else:
                operator.report({"INFO"}, f.summary())
                for w in f.warnings():
                    operator.report({"WARNING"}, w)
        operator.report({"INFO"} if not self.failed else {"WARNING"}, self.summary())
