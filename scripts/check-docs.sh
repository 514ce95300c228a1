#!/usr/bin/env bash
# check-docs.sh: fail when docs/ is not what `go tool tfplugindocs generate`
# renders from the schema, templates/ and examples/, when tfplugindocs
# validate rejects docs/, when a documented attribute has no description, or
# when the examples are not `terraform fmt` clean.
#
# The docs are regenerated in a temporary copy of the working tree, so the
# check never changes the tree it checks: it works the same on a fresh CI
# clone and on a developer's uncommitted changes, and it can run twice in a
# row. Run `make generate` (or `go generate ./...`) to fix a docs difference.
#
# Needs go and terraform on PATH. tfplugindocs uses that terraform; it is
# never given --tf-version, which would download one.
set -euo pipefail

export CHECKPOINT_DISABLE=1

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

die() { echo "check-docs: ERROR: $*" >&2; exit 1; }

command -v go >/dev/null || die "go not found on PATH"
command -v terraform >/dev/null ||
	die "terraform not found on PATH: tfplugindocs needs it to read the provider schema (install Terraform >= 1.11)"
[ -d docs ] || die "docs/ does not exist: run 'make generate' and commit the result"

failures=()
fail() { echo "check-docs: FAIL: $*" >&2; failures+=("$*"); }

work=$(mktemp -d "${TMPDIR:-/tmp}/check-docs.XXXXXX")
trap 'rm -rf "$work"' EXIT
copy="$work/src"
mkdir -p "$copy"

# Copy the working tree: tracked files plus untracked files that are not
# ignored (so new, uncommitted examples and templates count), without .git.
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git -C "$root" ls-files -z --cached --others --exclude-standard --deduplicate |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		tar -C "$root" --null -T - -cf - | tar -C "$copy" -xf -
else
	tar -C "$root" --exclude=./.git --exclude=./bin -cf - . | tar -C "$copy" -xf -
fi

echo "check-docs: tfplugindocs validate"
if ! (cd "$copy" && go tool tfplugindocs validate -provider-name custody) >"$work/validate.log" 2>&1; then
	grep -v '\[DEBUG\]' "$work/validate.log" >&2 || true
	fail "tfplugindocs validate rejected docs/ (output above)"
fi

echo "check-docs: tfplugindocs generate (in a temporary copy)"
if (cd "$copy" && go tool tfplugindocs generate -provider-name custody) >"$work/generate.log" 2>&1; then
	if ! diff -ru docs "$copy/docs" >"$work/docs.diff"; then
		cat "$work/docs.diff" >&2
		fail "docs/ is out of date with the schema, templates/ or examples/: run 'make generate' and commit docs/ (diff above: - committed, + generated)"
	fi
	# A schema entry renders as "- `name` (Type) Description"; a bare
	# "- `name` (Type)", or one followed only by the "(see below for nested
	# schema)" link, means the attribute has no MarkdownDescription.
	echo "check-docs: every attribute has a description"
	if undocumented=$(cd "$copy" && grep -rnE '^- `[^`]+` \([^)]*\)([[:space:]]*$| \(see \[below for nested schema\])' docs); then
		echo "$undocumented" >&2
		fail "attributes without a description in the generated docs (add a MarkdownDescription to the schema)"
	fi
else
	cat "$work/generate.log" >&2
	fail "tfplugindocs generate failed (output above)"
fi

# A warning said three times is read as noise: the IP allowlist's lockout
# warning appears once, where a reader meets it first, and links to the
# recovery steps.
echo "check-docs: the IP allowlist's lockout warning is said once"
page=docs/resources/ip_allowlist.md
if [ "$(grep -c '\*\*Lockout warning\.\*\*' "$page")" -ne 1 ] ||
	! grep -q '^!> \*\*Lockout warning\.\*\*.*(#recovering-from-a-lockout)' "$page" ||
	! grep -q '^### Recovering from a lockout' "$page"; then
	grep -n 'Lockout warning\|Recovering' "$page" >&2
	fail "$page should give the lockout warning once, in the callout at the top, linking to its '### Recovering from a lockout' section"
fi

# What a newcomer reads in two places must say the same: the emulator
# command, the time make bench takes; and the docs show a local build.
echo "check-docs: the README and the docs agree"
emulator_cmd() { grep -A1 '^go run ./cmd/custody-emulator' "$1"; }
if [ "$(emulator_cmd README.md)" != "$(emulator_cmd docs/index.md)" ] || [ -z "$(emulator_cmd README.md)" ]; then
	fail "the emulator command differs between README.md and docs/index.md (templates/index.md.tmpl)"
fi
bench_minutes=$(grep -ho 'about [0-9]* minutes' README.md GNUmakefile bench/README.md | sort -u)
if [ "$(printf '%s\n' "$bench_minutes" | wc -l)" -ne 1 ]; then
	fail "README.md, GNUmakefile and bench/README.md give different times for make bench: $(echo $bench_minutes)"
fi
if ! grep -q '^## Use a local build' docs/index.md || ! grep -q 'dev_overrides' docs/index.md; then
	fail "docs/index.md should show how to use a local build (## Use a local build, with dev_overrides)"
fi

# What the docs say of behaviour must match it (issue 33): the lockout
# check names the four activity types it decides (internal/provider's
# TestDocsNameTheLockoutTypes holds them to the code); the lost-answer
# drill is a make target, listed in the README and named where the docs
# explain lost answers; the kit's README says why its validation runs warn
# that resource targeting is in effect.
echo "check-docs: the docs match the behaviour they describe"
section() { awk -v h="$2" '$0 == h {on = 1; print; next} on && /^#/ {exit} on' "$1"; }
lockout=$(section docs/index.md '### The policy lockout check')
for t in ACTIVITY_TYPE_CREATE_POLICIES ACTIVITY_TYPE_UPDATE_POLICY_V2 ACTIVITY_TYPE_DELETE_POLICY ACTIVITY_TYPE_DELETE_POLICIES; do
	grep -q "\`$t\`" <<<"$lockout" || fail "docs/index.md '### The policy lockout check' does not name $t, one of the four types the check decides"
done
grep -q '^drill-lost-answers:' GNUmakefile || fail "GNUmakefile has no drill-lost-answers target"
grep -q '`drill-lost-answers`' README.md || fail "README.md's list of make targets lacks drill-lost-answers"
section docs/index.md '### When an answer is lost' | grep -q '`make drill-lost-answers`' ||
	fail "docs/index.md '### When an answer is lost' does not name make drill-lost-answers"
grep -q 'Resource targeting is in effect' examples/gitops/README.md ||
	fail "examples/gitops/README.md does not say why its validation runs warn 'Resource targeting is in effect'"

echo "check-docs: terraform fmt -check -recursive examples"
if ! fmt_out=$(terraform fmt -check -recursive -list=true examples 2>&1); then
	echo "$fmt_out" >&2
	fail "examples are not terraform fmt clean (files listed above): run 'terraform fmt -recursive examples'"
fi

if [ "${#failures[@]}" -gt 0 ]; then
	echo >&2
	echo "check-docs: ${#failures[@]} check(s) failed:" >&2
	printf '  - %s\n' "${failures[@]}" >&2
	exit 1
fi
echo "check-docs: OK (docs up to date and valid, every attribute described, examples formatted)"
