#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make series: write the series as a git format-patch series with a cover
letter into build/series/, from series/plan.  With BASE=V (harness/
lib.sh) for a base other than 6.1: base/V/series/plan into
build/series@V/ (class Base says where each part comes from).

The base tree becomes the single commit of a throwaway git repository,
build/series-git (kept between runs; the base tarball has no upstream
commit).  Each stanza of series/plan becomes one commit on top of it: the
repo's files it names, copied whole, and the diffs of patches/ it names,
applied with patch -p1 and no fuzz.  Every file prepare.sh lays into the
tree and every diff of patches/series must be claimed by exactly one
stanza, and the last commit must equal the tree that prepare.sh lays
(build/src/series), or this script stops.

The base tree, its version, build/ and the shipped paths come from
harness/lib.sh, so that they have one definition for every script.

A stanza's split diffs (series/split/) are what its patch changes in
files of this repo that earlier patches added.  Until that patch those
files are laid with the diff taken back (patch -R, no fuzz), so that the
earlier patches hold the files as they were before it.

--export-split writes series/split/ back from the commits of the series
branch of build/series-git, for a series reworked there with git rebase.
"""
import fnmatch
import locale
import os
import re
import shutil
import subprocess
import sys
import time

STAGE = "series"
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLUS_FILE = re.compile(rb"\+\+\+ b/([^\s]*)")


def log(msg):
    t = int(time.time()) - int(os.environ["HARNESS_T0"])
    print("[%s %4ds] %s" % (STAGE, t, msg), flush=True)


def die(msg):
    sys.stdout.flush()
    print("%s: error: %s" % (STAGE, msg), file=sys.stderr)
    sys.exit(1)


def run(*args, cwd=None, env=None, stdout=None):
    """Run a command; stop, as set -e would, if it fails."""
    sys.stdout.flush()
    res = subprocess.run(args, cwd=cwd, env=env, stdout=stdout)
    if res.returncode != 0:
        sys.exit(res.returncode)
    return res


def output(*args, cwd=None, check=True):
    """A command's output without its trailing newlines, as $(...) gives
    it.  If the command fails: None, or stop if check."""
    res = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, text=True)
    if res.returncode != 0:
        if check:
            sys.exit(res.returncode)
        return None
    return res.stdout.rstrip("\n")


class Base:
    """Where base BASE (lib.sh) keeps its part of the series.  6.1's is the
    repo's own: series/, patches/ and the files at their kernel paths.
    Another base V has base/V/series/ (plan, cover letter, split/ and the
    messages that differ; the others are series/msg/'s), base/V/patches/,
    and base/V/<path> for a file it has its own copy of (prepare.sh lays
    the same).  Its outputs are build/series@V and build/series-git@V."""

    def __init__(self):
        script = ('STAGE=series; . "$0" || exit 1; '
                  'base=$(base_tree) || exit 1; version=$(base_version) || exit 1; '
                  'printf "%s\\n" "$BUILD" "$base" "$version" "$SERIES_PATHS" "$BASE" '
                  '"$(base_layer)" "$(base_patches)" "$(series_tree)" "$(base_suffix)"')
        out = output("bash", "-c", script, os.path.join(REPO, "harness", "lib.sh"))
        (self.build, self.tree, self.version, paths, self.name, self.layer, self.pdir,
         self.series_tree, suffix) = (out + "\n").split("\n")[:9]
        self.paths = paths.split()
        self.sdir = os.path.join(REPO, self.layer, "series") if self.layer else \
            os.path.join(REPO, "series")
        self.repo = os.path.join(self.build, "series-git" + suffix)
        self.out = os.path.join(self.build, "series" + suffix)

    def rel(self, path):
        return relative(path)

    def plan(self):
        return os.path.join(self.sdir, "plan")

    def split(self, name=""):
        return os.path.join(self.sdir, "split", name)

    def splits(self, name):
        """The split diffs of NAME that exist, the base's own last: for a
        base V, series/split/NAME holds what it changes in the engine's
        files, which are one source for every base, and base/V/series/
        split/NAME what it changes in V's own copies (base/V/mm/...)."""
        paths = [os.path.join(REPO, "series", "split", name)]
        if self.layer:
            paths.append(self.split(name))
        return [p for p in paths if os.path.isfile(p)]

    def own(self, path):
        """Whether this base has its own copy of the file at kernel PATH."""
        return self.src(path) != os.path.join(REPO, path)

    def patch(self, name=""):
        """The diff NAME of this base's series file: its own, else 6.1's of
        that name (prepare.sh takes the same, lib.sh base_patch)."""
        own = os.path.join(self.pdir, name)
        common = os.path.join(REPO, "patches", name)
        if not name or os.path.isfile(own) or not os.path.isfile(common):
            return own
        return common

    def src(self, path):
        """The repo's copy of the file at kernel path PATH for this base."""
        if self.layer and os.path.isfile(os.path.join(REPO, self.layer, path)):
            return os.path.join(REPO, self.layer, path)
        return os.path.join(REPO, path)

    def msg(self, name):
        """series/msg/NAME.txt, or this base's own copy of it."""
        own = os.path.join(self.sdir, "msg", name + ".txt")
        if os.path.isfile(own):
            return own
        return os.path.join(REPO, "series", "msg", name + ".txt")

    def shipped(self):
        """The files prepare.sh lays whole, by kernel path."""
        names = set()
        for top in [REPO] + ([os.path.join(REPO, self.layer)] if self.layer else []):
            ls = output("git", "ls-files", "-co", "--exclude-standard", "--", *self.paths,
                        cwd=top)
            names.update(f for f in ls.split("\n") if f and os.path.isfile(os.path.join(top, f)))
        return collate(names)


B = None        # the Base, set by main()


def collate(names):
    """Sorted as sort(1) and the shell's globs sort them: by the locale."""
    return sorted(names, key=lambda s: (locale.strxfrm(s), s))


def uncomment(path):
    """The lines of a file without comments, blank ones dropped."""
    with open(path) as f:
        lines = [re.sub(r"#.*", "", l.rstrip("\n")) for l in f]
    return [l for l in lines if l.strip()]


def plus_files(patch):
    """The files a diff writes (its +++ b/ lines)."""
    with open(patch, "rb") as f:
        lines = f.read().split(b"\n")
    return [os.fsdecode(m.group(1)) for m in map(PLUS_FILE.match, lines) if m]


def parse_plan(plan):
    """series/plan as a list of stanzas: name, subject lines and the
    (kind, value) entries of its file and diff lines.  Stops on lines that
    do not parse, naming each."""
    stanzas, bad = [], []
    with open(plan) as f:
        for lineno, line in enumerate(f, 1):
            line = re.sub(r"#.*", "", line.rstrip("\n"))
            words = line.split()
            if not words:
                continue
            kw = words[0]
            if kw == "patch":
                stanzas.append({"name": None, "subjects": [], "entries": []})
                if len(words) != 2:
                    bad.append("%d: patch takes one name" % lineno)
                else:
                    stanzas[-1]["name"] = words[1]
            elif not stanzas:
                bad.append("%d: %s before the first patch" % (lineno, kw))
            elif kw == "subject":
                subject = re.sub(r"^subject\s+", "", line).split()
                stanzas[-1]["subjects"].append(" ".join(subject))
            elif kw in ("file", "diff", "split"):
                if len(words) != 2:
                    bad.append("%d: %s takes one path" % (lineno, kw))
                else:
                    stanzas[-1]["entries"].append((kw, words[1]))
            else:
                bad.append("%d: unknown keyword %s" % (lineno, kw))
    if bad:
        for b in bad:
            print("%s:%s" % (B.rel(plan), b), file=sys.stderr)
        die("%s does not parse" % B.rel(plan))
    return stanzas


class Errors:
    def __init__(self):
        self.count = 0

    def __call__(self, msg):
        print("series: error: " + msg, file=sys.stderr)
        self.count += 1


def check_plan(stanzas, shipped, listed, cover):
    """Expand the file globs of the plan (in place) and check that it claims
    every shipped file and every listed diff exactly once."""
    fail = Errors()
    plan = B.rel(B.plan())
    listed_words = " ".join(listed).split()
    claimed_before = set()
    for st in stanzas:
        entries = []
        for kind, value in st["entries"]:
            if kind == "split":
                if not B.splits(value):
                    fail("%s: 'split %s': no %s" % (plan, value, B.rel(B.split(value))))
                    continue
                for path in B.splits(value):
                    for f in plus_files(path):
                        if f not in claimed_before:
                            fail("%s changes %s, which no earlier patch adds" %
                                 (B.rel(path), f))
                        elif B.layer and B.own(f) != (path == B.split(value)):
                            fail("%s changes %s, which is %s" %
                                 (B.rel(path), f, "this base's own copy" if B.own(f)
                                  else "the engine's one source"))
                entries.append(("split", value))
                continue
            if kind == "file":
                hits = [f for f in shipped if fnmatch.fnmatchcase(f, value)]
                entries += [("file", f) for f in hits]
                if not hits:
                    fail("%s: 'file %s' matches no file this repo ships" % (plan, value))
                continue
            if not os.path.isfile(B.patch(value)):
                fail("%s: 'diff %s': no %s" % (plan, value, B.rel(B.patch(value))))
            if value not in listed:
                fail("%s: 'diff %s' is not in %s, so the harness does not apply it"
                     % (plan, value, B.rel(B.patch("series"))))
            entries.append(("diff", value))
        st["entries"] = entries
        claimed_before.update(v for k, v in entries if k == "file")

    claims = [e for st in stanzas for e in st["entries"]]
    for f in shipped:
        c = claims.count(("file", f))
        if c != 1:
            fail("%s is claimed by %d patches of %s (add it to exactly one)" % (f, c, plan))
    for p in listed_words:
        c = claims.count(("diff", p))
        if c != 1:
            fail("%s is claimed by %d patches of %s "
                 "(add it to exactly one)" % (B.rel(B.patch(p)), c, plan))
    for p in collate(os.listdir(B.patch())):
        if p.endswith(".patch") and not p.startswith(".") and p not in listed:
            fail("%s is not in %s" % (B.rel(B.patch(p)), B.rel(B.patch("series"))))
    splitdir = B.split()
    for p in collate(os.listdir(splitdir)) if os.path.isdir(splitdir) else []:
        c = claims.count(("split", p))
        if c != 1:
            fail("%s is claimed by %d patches of %s "
                 "(add it to exactly one)" % (B.rel(B.split(p)), c, plan))

    for st in stanzas:
        name, subj = st["name"], "\n".join(st["subjects"])
        if not subj:
            fail("%s: patch %s has no subject" % (plan, name))
        if len(subj) >= 75:
            fail("%s: the subject of %s is %d characters: '%s'" % (plan, name, len(subj), subj))
        if ": " not in subj:
            fail("%s: the subject of %s has no 'subsystem: ' prefix" % (plan, name))
        msg = B.msg(name)
        if not os.path.isfile(msg):
            fail("%s: patch %s has no series/msg/%s.txt" % (plan, name, name))
        else:
            with open(msg, "rb") as f:
                if any(len(l) > 75 for l in f.read().split(b"\n")):
                    fail("%s has lines over 75 characters" % B.rel(msg))
        if not st["entries"]:
            fail("%s: patch %s changes nothing" % (plan, name))
    if not os.path.isfile(cover):
        fail("%s missing" % B.rel(cover))
    if fail.count:
        die("%d problem(s) with %s; every file and diff the harness lays "
            "must be in exactly one patch" % (fail.count, plan))


def make_base_repo(repo, base, version):
    """The throwaway repository with the base as its only commit, made once
    per base tree."""
    stamp = "%s %s" % (base, version)
    try:
        with open(os.path.join(repo, ".git", "harness-base")) as f:
            have = f.read().rstrip("\n")
    except OSError:
        have = None
    if os.path.isdir(os.path.join(repo, ".git")) and have == stamp:
        return
    log("making %s: the base tree as one commit (once)" % repo)
    package = ".".join(version.split(".")[:2])
    shutil.rmtree(repo, ignore_errors=True)
    os.makedirs(repo, exist_ok=True)
    src = subprocess.Popen(["tar", "--exclude=./.harness-unpacked", "-cf", "-", "."],
                           cwd=base, stdout=subprocess.PIPE)
    dst = subprocess.run(["tar", "-C", repo, "-xf", "-"], stdin=src.stdout)
    src.stdout.close()
    ok = src.wait() == 0 and dst.returncode == 0
    date = dict(os.environ, GIT_AUTHOR_DATE="2022-12-11T00:00:00Z",
                GIT_COMMITTER_DATE="2022-12-11T00:00:00Z")
    for cmd, env in ((["git", "init", "-q"], None),
                     (["git", "config", "core.autocrlf", "false"], None),
                     (["git", "config", "gc.auto", "0"], None),
                     (["git", "add", "-A", "-f", "."], None),
                     (["git", "commit", "-q", "-m", "Linux %s (Debian linux-source-%s)"
                       % (version, package), "-m", "The base tree of the series, unpacked "
                       "from Debian's linux-source-%s package: not an upstream commit."
                       % package], date),
                     (["git", "tag", "-f", "base"], None)):
        ok = ok and subprocess.run(cmd, cwd=repo, env=env,
                                   stdout=subprocess.DEVNULL).returncode == 0
    if not ok:
        die("cannot make the base repository %s" % repo)
    with open(os.path.join(repo, ".git", "harness-base"), "w") as f:
        f.write(stamp + "\n")


def split_pieces(name):
    """The split diffs of <name> (B.splits) cut into the diff of each
    file: {path: bytes}."""
    lines = []
    for path in B.splits(name):
        with open(path, "rb") as f:
            lines += f.read().rstrip(b"\n").split(b"\n")
    pieces, cur = {}, None
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else b""
        if line.startswith(b"--- ") and PLUS_FILE.match(nxt):
            cur = os.fsdecode(PLUS_FILE.match(nxt).group(1))
            pieces[cur] = []
        if line.startswith(b"diff --git "):
            cur = None
        elif cur is not None:
            pieces[cur].append(line)
    return {f: b"\n".join(l) + b"\n" for f, l in pieces.items()}


def lay_early(n, stanzas, laid):
    """Lay the repo's files that split diffs change as they are after
    patch n: whole, with the split diffs of the later patches taken back,
    the last one first.  Returns their paths."""
    splits = [(st["name"], split_pieces(v)) for st in stanzas
              for k, v in st["entries"] if k == "split"]
    later = [(name, pieces) for st in stanzas[n:]
             for name, pieces in splits if name == st["name"]]
    files = sorted(set(f for _, pieces in splits for f in pieces) & laid)
    for f in files:
        os.remove(f)
        shutil.copy(B.src(f), f)
        for name, pieces in reversed(later):
            if f not in pieces:
                continue
            res = subprocess.run(["patch", "-p1", "-R", "-F0", "-s", "--no-backup-if-mismatch",
                                  "-r", "-", f], input=pieces[f], stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT)
            if res.returncode != 0:
                sys.stderr.buffer.write(res.stdout.rstrip(b"\n") + b"\n")
                die("patch %d: the split diff of patch %s no longer fits %s; update "
                    "%s/ (see %s)" % (n, name, f, B.rel(B.split()).rstrip("/"), B.rel(B.plan())))
    return files


def commit_stanza(n, stanzas, laid, version, signoff, date_env):
    """Lay stanza n (from 1) onto the work tree of build/series-git (the
    current directory) and commit it."""
    st = stanzas[n - 1]
    paths = []
    for kind, value in st["entries"]:
        if kind == "split":
            continue
        if kind == "file":
            if os.path.dirname(value):
                os.makedirs(os.path.dirname(value), exist_ok=True)
            if os.path.lexists(value):
                os.remove(value)
            shutil.copy(B.src(value), value)
            paths.append(value)
            continue
        patch = B.patch(value)
        with open(patch) as f:
            res = subprocess.run(["patch", "-p1", "-F0", "-N", "-s", "--no-backup-if-mismatch",
                                  "-r", "-"], stdin=f, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT)
        if res.returncode != 0:
            sys.stderr.buffer.write(res.stdout.rstrip(b"\n") + b"\n")
            die("patch %d (%s): %s does not apply without fuzz at this point of the series"
                % (n, st["name"], B.rel(patch)))
        paths += plus_files(patch)
    laid.update(v for k, v in st["entries"] if k == "file")
    paths += lay_early(n, stanzas, laid)
    run("git", "add", "-A", "-f", "--", *paths)
    if subprocess.run(["git", "diff", "--cached", "--quiet"]).returncode == 0:
        die("patch %d (%s) changes nothing" % (n, st["name"]))
    with open(B.msg(st["name"]), "rb") as f:
        body = drop_result_markers(f.read().decode()).replace("@VERSION@", version).encode()
    msgfile = os.path.join(".git", "series-msg")
    with open(msgfile, "wb") as f:
        f.write(("\n".join(st["subjects"]) + "\n\n").encode() + body +
                ("\n" + signoff + "\n").encode())
    run("git", "commit", "-q", "--cleanup=verbatim", "-F", msgfile, env=date_env)


def same_file(a, b):
    try:
        with open(a, "rb") as fa, open(b, "rb") as fb:
            return fa.read() == fb.read()
    except OSError:
        return False


def check_tree():
    """The last commit must be the tree that prepare.sh lays."""
    run(os.path.join(REPO, "harness", "prepare.sh"), B.name, stdout=subprocess.DEVNULL)
    tree = B.series_tree
    names = set(output("git", "diff", "--name-only", "base", "series").split("\n"))
    with open(tree + ".manifest") as f:
        names.update(l.rstrip("\n") for l in f)
    names.discard("")
    ndiff = 0
    for f in collate(names):
        t = os.path.join(tree, f)
        if (os.path.exists(f) or os.path.exists(t)) and not same_file(f, t):
            print("series: %s differs between the series and %s" % (f, relative(tree)),
                  file=sys.stderr)
            ndiff += 1
    if ndiff:
        die("the series does not produce the tree that 'make tree' lays (%d files differ)" % ndiff)


def drop_result_markers(text):
    """TEXT without the marker lines of the blocks harness/results.py
    generates ("#results.py KIND BASE", "#results.py end"): they are
    the repository's, not the letter's or the message's."""
    return "".join(x for x in text.splitlines(True) if not x.startswith("#results.py "))


def fill_cover_letter(path, cover, version, basesha):
    with open(cover) as f:
        text = f.read().replace("@VERSION@", version).replace("@BASE@", basesha)
    lines = drop_result_markers(text).split("\n")
    subject, body = lines[0], "\n".join(lines[2:]).rstrip("\n")
    with open(path) as f:
        text = f.read()
    if "*** SUBJECT HERE ***" not in text or "*** BLURB HERE ***" not in text:
        die("%s has no *** SUBJECT HERE *** or *** BLURB HERE ***" % path)
    text = text.replace("*** SUBJECT HERE ***", subject).replace("*** BLURB HERE ***", body)
    with open(path, "w") as f:
        f.write(text)


def relative(path):
    return path[len(REPO) + 1:] if path.startswith(REPO + "/") else path


def export_split(stanzas, repo):
    """Write the split diffs (series/split/) from the series branch of build/series-git: the
    diff each patch with a split entry makes to files added before it.  For a base V, what
    it changes in V's own copies goes to base/V/series/split/ (B.splits), the rest to
    series/split/, which the other bases' series then take back too."""
    commits = (output("git", "rev-list", "--reverse", "base..series", cwd=repo,
                      check=False) or "").split()
    if len(commits) != len(stanzas):
        die("%s has %d series commits for %d patches of %s"
            % (relative(repo), len(commits), len(stanzas), B.rel(B.plan())))
    added, prev = [], "base"
    for st, commit in zip(stanzas, commits):
        splits = [v for k, v in st["entries"] if k == "split"]
        if len(splits) > 1:
            die("patch %s has %d split diffs; --export-split writes one" % (st["name"], len(splits)))
        kinds = ([False, True] if B.layer else [False]) if splits else []
        for own in kinds:
            path = B.split(splits[0]) if own else os.path.join(REPO, "series", "split",
                                                               splits[0])
            files = [f for f in added if B.own(f) == own]
            diff = output("git", "diff", "--no-renames", "--diff-filter=M", prev, commit,
                          "--", *files, cwd=repo) if files else ""
            text = "".join(l + "\n" for l in diff.split("\n") if not l.startswith("index "))
            if own and not diff:
                if os.path.isfile(path):
                    os.remove(path)
                    log("removed %s" % B.rel(path))
                continue
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
            log("wrote %s" % B.rel(path))
        added += [v for k, v in st["entries"] if k == "file"]
        prev = commit


def main():
    os.environ["HARNESS_T0"] = os.environ.get("HARNESS_T0") or str(int(time.time()))
    try:
        locale.setlocale(locale.LC_COLLATE, "")
    except locale.Error:
        pass
    global B
    B = Base()
    plan = B.plan()
    cover = os.path.join(B.sdir, "cover-letter.txt")
    base, version, repo, out = B.tree, B.version, B.repo, B.out
    if not os.path.isfile(plan):
        die("%s missing: no series for base %s yet" % (B.rel(plan), B.name))

    # Without a git identity (a CI checkout) the patches are signed off
    # by a placeholder, and say so.
    name = output("git", "-C", REPO, "config", "user.name", check=False)
    email = output("git", "-C", REPO, "config", "user.email", check=False)
    if name is None or email is None:
        log("git user.name or user.email is not set: signing off as Slab Series")
        name, email = "Slab Series", "slab@localhost"
    signoff = "Signed-off-by: %s <%s>" % (name, email)
    os.environ.update(GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email,
                      GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email)
    # Reproducible output: the base commit has a fixed date, the series
    # the date of the repo's last commit.
    series_date = output("git", "-C", REPO, "log", "-1", "--format=%aD")
    date_env = dict(os.environ, GIT_AUTHOR_DATE=series_date, GIT_COMMITTER_DATE=series_date)

    # 1. Read the plan and check that it covers everything.
    shipped = B.shipped()
    listed = uncomment(B.patch("series"))
    stanzas = parse_plan(plan)
    check_plan(stanzas, shipped, listed, cover)
    if sys.argv[1:] == ["--export-split"]:
        export_split(stanzas, repo)
        return
    if sys.argv[1:]:
        die("usage: series.py [--export-split]")

    # 2. The throwaway repository with the base as its only commit.
    make_base_repo(repo, base, version)
    os.chdir(repo)
    run("git", "checkout", "-q", "-f", "--detach", "base")
    run("git", "clean", "-q", "-f", "-d", "-x")
    subprocess.run(["git", "branch", "-q", "-D", "series"], stderr=subprocess.DEVNULL)
    run("git", "checkout", "-q", "-b", "series")

    # 3. One commit per stanza.
    laid = set()
    for n in range(1, len(stanzas) + 1):
        commit_stanza(n, stanzas, laid, version, signoff, date_env)

    # 4. The last commit must be the tree that prepare.sh lays.
    check_tree()

    # 5. format-patch with the cover letter.
    shutil.rmtree(out, ignore_errors=True)
    run("git", "format-patch", "-q", "--cover-letter", "--base=base", "-o", out, "base..series",
        env=dict(os.environ, GIT_COMMITTER_DATE=series_date))
    fill_cover_letter(os.path.join(out, "0000-cover-letter.patch"), cover, version,
                      output("git", "rev-parse", "base"))
    log("wrote %d patches and a cover letter to %s (base: Linux %s, %s in %s)"
        % (len(stanzas), relative(out), version, output("git", "rev-parse", "--short", "base"),
           relative(repo)))
    run("git", "log", "--reverse", "--format=  %s", "base..series")


if __name__ == "__main__":
    main()
