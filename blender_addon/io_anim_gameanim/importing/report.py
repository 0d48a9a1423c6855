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
        self.kept = {}           # action name -> how a not-assigned action is kept
        self.replaced = []       # names of earlier imports' actions replaced
        self.built = None        # a model file: what was built (text)

    @property
    def ok(self):
        return self.error is None

    @property
    def imported(self):
        """Read and made at least one action or (a model file) its
        armature; a file that animated nothing, such as a BTK whose
        materials are missing, is not imported."""
        return self.ok and bool(self.actions or self.built)

    @property
    def name(self):
        return self.path.replace("\\", "/").rsplit("/", 1)[-1]

    def summary(self):
        if not self.ok:
            return f"{self.name}: FAILED: {self.error}"
        what = self.format or "?"
        if self.compression:
            what += f" in {self.compression}"
        made = [a + (f" ({self.kept[a]})" if a in self.kept else "") for a in self.actions]
        if self.built and not made:
            made = [self.built]
        parts = [f"{self.name}: {what} -> {', '.join(made) or 'nothing imported (no bone or material matched)'}"]
        if self.replaced:
            parts.append("replaced the earlier import of " + ", ".join(repr(n) for n in self.replaced))
        if self.owners:
            parts.append("on " + ", ".join(self.owners))
        if self.exact or self.baked:
            parts.append(f"{len(self.exact)} exact, {len(self.baked)} baked bones")
        if self.unmatched:
            parts.append(f"{len(self.unmatched)} unmatched")
        if self.missing_materials:
            parts.append(f"{len(self.missing_materials)} missing materials")
        return "; ".join(parts)

    def warning_texts(self):
        """The file's warnings without its name (for merging equal ones)."""
        out = []
        if self.unmatched:
            out.append(f"{len(self.unmatched)} target(s) found no bone or material: {', '.join(self.unmatched)}")
        if self.missing_materials:
            out.append(f"material(s) not found: {', '.join(self.missing_materials)}")
        if self.baked:
            reasons = {}
            for bone, reason in self.baked:
                reasons.setdefault(reason, []).append(bone)
            for reason, bones in reasons.items():
                out.append(f"baked {len(bones)} bone(s) ({reason}): {', '.join(bones)}")
        out.extend(self.notes)
        return out

    def warnings(self):
        return [f"{self.name}: {w}" for w in self.warning_texts()]


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

    @property
    def imported(self):
        return [f for f in self.files if f.imported]

    @property
    def empty(self):
        """Files read without error that animated nothing."""
        return [f for f in self.files if f.ok and not f.imported]

    def merged_warnings(self):
        """(text, file names) per distinct warning, in first-seen order: 40
        files with one warning are one line, not 40."""
        merged = {}
        for f in self.files:
            if f.ok:
                for w in f.warning_texts():
                    merged.setdefault(w, []).append(f.name)
        return list(merged.items())

    def warning_lines(self):
        out = []
        for text, names in self.merged_warnings():
            if len(names) == 1:
                out.append(f"{names[0]}: {text}")
            else:
                shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
                out.append(f"{text} (in {len(names)} files: {shown})")
        return out

    def summary(self):
        n_actions = sum(len(f.actions) for f in self.files)
        s = f"Imported {len(self.imported)} of {len(self.files)} file(s), {n_actions} action(s)"
        if self.empty:
            s += f"; {len(self.empty)} animated nothing"
        if self.failed:
            s += f"; {len(self.failed)} failed"
        n_warn = sum(len(f.warning_texts()) for f in self.files if f.ok)
        if n_warn:
            s += f"; {n_warn} warning(s)"
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
        """Operator reports: failures, then each distinct warning once (with
        the number of files it came from), then the summary: a warning
        whenever something failed, animated nothing or warned."""
        for f in self.files:
            if not f.ok:
                operator.report({"ERROR"}, f.summary())
            elif not f.imported:
                operator.report({"WARNING"}, f.summary())
        if len(self.files) <= 3:
            for f in self.imported:
                operator.report({"INFO"}, f.summary())
        for line in self.warning_lines():
            operator.report({"WARNING"}, line)
        clean = not (self.failed or self.empty or self.merged_warnings())
        operator.report({"INFO"} if clean else {"WARNING"}, self.summary())
