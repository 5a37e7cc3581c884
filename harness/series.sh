#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make series: write the series as a git format-patch series with a cover
# letter into build/series/, from series/plan.
#
# The base tree becomes the single commit of a throwaway git repository,
# build/series-git (kept between runs; the base tarball has no upstream
# commit).  Each stanza of series/plan becomes one commit on top of it:
# the repo's files it names, copied whole, and the diffs of patches/ it
# names, applied with patch -p1 and no fuzz.  Every file prepare.sh lays
# into the tree and every diff of patches/series must be claimed by
# exactly one stanza, and the last commit must equal the tree that
# prepare.sh lays (build/src/series), or this script stops.
set -eu
STAGE=series
. "$(dirname "$0")/lib.sh"

plan=$REPO/series/plan
msgs=$REPO/series/msg
cover=$REPO/series/cover-letter.txt
repo=$BUILD/series-git
out=$BUILD/series

base=$(base_tree)
version=$(base_version)
[ -f "$plan" ] || die "series/plan missing"

name=$(git -C "$REPO" config user.name) || die "git user.name is not set"
email=$(git -C "$REPO" config user.email) || die "git user.email is not set"
signoff="Signed-off-by: $name <$email>"
export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email
export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email
# Reproducible output: the base commit has a fixed date, the series the
# date of the repo's last commit.
series_date=$(git -C "$REPO" log -1 --format=%aD)

# ---- 1. Read the plan and check that it covers everything. ----
shipped=$(cd "$REPO" && git ls-files -co --exclude-standard -- $SERIES_PATHS |
	while read -r f; do [ -f "$f" ] && echo "$f"; done | sort)
listed=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$REPO/patches/series")

# Flatten the plan into "N kind value" lines, globs expanded.
flat=$(mktemp)
trap 'rm -f "$flat" "$flat".*' EXIT
awk -v f="$plan" '
	{ sub(/#.*/, "") }
	NF == 0 { next }
	$1 == "patch" { n++; if (NF != 2) { print "bad: " FNR ": patch takes one name" ; next } print n, "patch", $2; next }
	n == 0 { print "bad: " FNR ": " $1 " before the first patch"; next }
	$1 == "subject" { s = $0; sub(/^subject[[:space:]]+/, "", s); print n, "subject", s; next }
	$1 == "file" || $1 == "diff" { if (NF != 2) { print "bad: " FNR ": " $1 " takes one path"; next } print n, $1, $2; next }
	{ print "bad: " FNR ": unknown keyword " $1 }
' "$plan" >"$flat.raw"
if grep -q '^bad: ' "$flat.raw"; then
	sed -n 's/^bad: /series\/plan:/p' "$flat.raw" >&2
	die "series/plan does not parse"
fi

errors=0
fail() {
	echo "series: error: $*" >&2
	errors=$((errors + 1))
}

: >"$flat"
while read -r n kind value; do
	case $kind in
	file)
		hits=0
		while read -r f; do
			# shellcheck disable=SC2053
			if [[ $f == $value ]]; then
				echo "$n file $f" >>"$flat"
				hits=$((hits + 1))
			fi
		done <<<"$shipped"
		[ $hits -gt 0 ] || fail "series/plan: 'file $value' matches no file this repo ships"
		;;
	diff)
		[ -f "$REPO/patches/$value" ] || fail "series/plan: 'diff $value': no patches/$value"
		grep -qxF "$value" <<<"$listed" ||
			fail "series/plan: 'diff $value' is not in patches/series, so the harness does not apply it"
		echo "$n diff $value" >>"$flat"
		;;
	*) echo "$n $kind $value" >>"$flat" ;;
	esac
done <"$flat.raw"

# Every shipped file and every listed diff exactly once.
while read -r f; do
	c=$(awk -v f="$f" '$2 == "file" && $3 == f' "$flat" | wc -l)
	[ "$c" = 1 ] || fail "$f is claimed by $c patches of series/plan (add it to exactly one)"
done <<<"$shipped"
for p in $listed; do
	c=$(awk -v f="$p" '$2 == "diff" && $3 == f' "$flat" | wc -l)
	[ "$c" = 1 ] || fail "patches/$p is claimed by $c patches of series/plan (add it to exactly one)"
done
for p in "$REPO"/patches/*.patch; do
	grep -qxF "$(basename "$p")" <<<"$listed" ||
		fail "patches/$(basename "$p") is not in patches/series"
done

npatches=$(awk '$2 == "patch"' "$flat" | wc -l)
for n in $(seq 1 "$npatches"); do
	pname=$(awk -v n="$n" '$1 == n && $2 == "patch" { print $3 }' "$flat")
	subj=$(awk -v n="$n" '$1 == n && $2 == "subject" { $1 = $2 = ""; sub(/^  /, ""); print }' "$flat")
	[ -n "$subj" ] || fail "series/plan: patch $pname has no subject"
	[ ${#subj} -lt 75 ] || fail "series/plan: the subject of $pname is ${#subj} characters: '$subj'"
	[[ $subj == *": "* ]] || fail "series/plan: the subject of $pname has no 'subsystem: ' prefix"
	if [ ! -f "$msgs/$pname.txt" ]; then
		fail "series/plan: patch $pname has no series/msg/$pname.txt"
	elif awk 'length > 75 { exit 1 }' "$msgs/$pname.txt"; then :; else
		fail "series/msg/$pname.txt has lines over 75 characters"
	fi
	awk -v n="$n" '$1 == n && ($2 == "file" || $2 == "diff")' "$flat" | grep -q . ||
		fail "series/plan: patch $pname changes nothing"
done
[ -f "$cover" ] || fail "series/cover-letter.txt missing"
[ $errors = 0 ] || die "$errors problem(s) with series/plan; every file and diff the harness lays must be in exactly one patch"

# ---- 2. The throwaway repository with the base as its only commit. ----
stamp="$base $version"
if [ ! -d "$repo/.git" ] || [ "$(cat "$repo/.git/harness-base" 2>/dev/null)" != "$stamp" ]; then
	log "making $repo: the base tree as one commit (once)"
	rm -rf "$repo"
	mkdir -p "$repo"
	(cd "$base" && tar --exclude=./.harness-unpacked -cf - .) | tar -C "$repo" -xf -
	(
		cd "$repo"
		git init -q
		git config core.autocrlf false
		git config gc.auto 0
		git add -A -f .
		GIT_AUTHOR_DATE="2022-12-11T00:00:00Z" GIT_COMMITTER_DATE="2022-12-11T00:00:00Z" \
			git commit -q -m "Linux $version (Debian linux-source-6.1)" \
			-m "The base tree of the series, unpacked from Debian's linux-source-6.1 package: not an upstream commit."
		git tag -f base >/dev/null
	) || die "cannot make the base repository $repo"
	echo "$stamp" >"$repo/.git/harness-base"
fi
cd "$repo"
git checkout -q -f --detach base
git clean -q -f -d -x
git branch -q -D series 2>/dev/null || true
git checkout -q -b series

# ---- 3. One commit per stanza. ----
for n in $(seq 1 "$npatches"); do
	pname=$(awk -v n="$n" '$1 == n && $2 == "patch" { print $3 }' "$flat")
	subj=$(awk -v n="$n" '$1 == n && $2 == "subject" { $1 = $2 = ""; sub(/^  /, ""); print }' "$flat")
	paths=()
	for f in $(awk -v n="$n" '$1 == n && $2 == "file" { print $3 }' "$flat"); do
		mkdir -p "$(dirname "$f")"
		rm -f "$f"
		cp "$REPO/$f" "$f"
		paths+=("$f")
	done
	for p in $(awk -v n="$n" '$1 == n && $2 == "diff" { print $3 }' "$flat"); do
		if ! res=$(patch -p1 -F0 -N -s --no-backup-if-mismatch -r - <"$REPO/patches/$p" 2>&1); then
			printf '%s\n' "$res" >&2
			die "patch $n ($pname): patches/$p does not apply without fuzz at this point of the series"
		fi
		while read -r f; do paths+=("$f"); done < <(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$REPO/patches/$p")
	done
	git add -A -f -- "${paths[@]}"
	git diff --cached --quiet && die "patch $n ($pname) changes nothing"
	{
		echo "$subj"
		echo
		sed "s/@VERSION@/$version/g" "$msgs/$pname.txt"
		echo
		echo "$signoff"
	} >"$repo/.git/series-msg"
	GIT_AUTHOR_DATE=$series_date GIT_COMMITTER_DATE=$series_date \
		git commit -q --cleanup=verbatim -F "$repo/.git/series-msg"
done

# ---- 4. The last commit must be the tree that prepare.sh lays. ----
"$REPO/harness/prepare.sh" >/dev/null
tree=$BUILD/src/series
ndiff=0
while read -r f; do
	if [ -e "$f" ] || [ -e "$tree/$f" ]; then
		if ! cmp -s "$f" "$tree/$f"; then
			echo "series: $f differs between the series and build/src/series" >&2
			ndiff=$((ndiff + 1))
		fi
	fi
done < <({ git diff --name-only base series; cat "$BUILD/src/series.manifest"; } | sort -u)
[ $ndiff = 0 ] || die "the series does not produce the tree that 'make tree' lays ($ndiff files differ)"

# ---- 5. format-patch with the cover letter. ----
rm -rf "$out"
GIT_COMMITTER_DATE=$series_date git format-patch -q --cover-letter --base=base \
	-o "$out" base..series
cl=$(ls "$out"/0000-cover-letter.patch)
python3 - "$cl" "$cover" "$version" "$(git rev-parse base)" <<'EOF'
import sys
path, cover, version, basesha = sys.argv[1:]
lines = open(cover).read().replace('@VERSION@', version).replace('@BASE@', basesha).split('\n')
subject, body = lines[0], '\n'.join(lines[2:]).rstrip('\n')
text = open(path).read()
assert '*** SUBJECT HERE ***' in text and '*** BLURB HERE ***' in text
text = text.replace('*** SUBJECT HERE ***', subject).replace('*** BLURB HERE ***', body)
open(path, 'w').write(text)
EOF
log "wrote $npatches patches and a cover letter to ${out#$REPO/} (base: Linux $version, $(git rev-parse --short base) in ${repo#$REPO/})"
git log --reverse --format='  %s' base..series
