#!/usr/bin/env bash
# make demo: the provider end to end against the local emulator.
#
# It builds the provider and cmd/custody-emulator into a temporary
# directory, starts the emulator (fresh state, examples/emulator/fixtures.json),
# points Terraform at the fresh build with a dev_overrides CLI configuration
# (no `terraform init`, no registry), and then, in a copy of examples/demo:
# applies, checks that a second plan is empty, writes a month of activities
# into the emulator (custody-emulator history) and plans a stricter signing
# policy with the replay on, which names the transfers it would have held,
# changes a policy behind Terraform's back with tools/demo-drift, checks
# that the plan shows the drift, makes a grant beside the configuration and checks that the plan
# removes it (custody_policies_exclusive) and the apply reverts both
# drifts, and destroys everything. It exits non-zero as soon as a step
# misbehaves. Nothing outside the temporary directory is touched, and the
# EXIT trap stops the emulator and removes the directory however the
# script ends.
#
# Needs: go, and Terraform (>= 1.11) or OpenTofu (>= 1.11): TERRAFORM
# names the CLI to run (a path, or a name on PATH); without it, the first
# terraform or tofu on PATH, in PATH's order (scripts/lib/cli.sh). The
# steps are labelled by the CLI that runs them (`tofu apply` with OpenTofu).
# Network only for the Go module proxy: the first build on a machine
# downloads the modules the provider needs, which takes minutes; later
# runs build from Go's caches in seconds.
set -euo pipefail

readonly STEPS=9

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

step() { printf '\n\033[1m==> %s/%s %s\033[0m\n' "$1" "$STEPS" "$2"; }
die() {
	printf '\n\033[1;31mDEMO FAILED: %s\033[0m\n' "$*" >&2
	exit 1
}

command -v go >/dev/null || die "go not found on PATH"
# shellcheck source=scripts/lib/cli.sh
source "$ROOT/scripts/lib/cli.sh"
if [[ -z "${TERRAFORM:-}" ]]; then
	TERRAFORM="$(first_cli_on_path)" || die "neither terraform nor tofu is on PATH (install Terraform or OpenTofu, or set TERRAFORM to its path)"
fi
command -v "$TERRAFORM" >/dev/null || die "$TERRAFORM not found (install Terraform or OpenTofu, or set TERRAFORM to its path)"
cli_version="$("$TERRAFORM" version 2>/dev/null | grep -E '^(Terraform|OpenTofu) v')" || die "$TERRAFORM version failed"
echo "$cli_version"
# CLI names the steps, as a user would type them.
case $cli_version in
OpenTofu*) CLI=tofu ;;
*) CLI=terraform ;;
esac

# shellcheck source=scripts/lib/emulator.sh
source "$ROOT/scripts/lib/emulator.sh"
make_work demo

# ---------------------------------------------------------------------------
step 1 "building the provider and custody-emulator into $WORK"
echo "(the first build on a machine downloads the Go modules it needs: a few minutes, once)"
build_binaries
ls -l "$WORK/bin/terraform-provider-custody" "$WORK/custody-emulator"

# ---------------------------------------------------------------------------
step 2 "starting the emulator (fresh state, fixtures examples/emulator/fixtures.json)"
start_emulator "$WORK/emulator.state.json" \
	-env-file "$WORK/custody-emulator.env" \
	-fixtures "$ROOT/examples/emulator/fixtures.json"
grep -m1 '^custody-emulator: serving' "$WORK/emulator.stdout" || true
echo "pid $EMULATOR_PID, organization $CUSTODY_ORGANIZATION_ID (API key in the environment, not shown)"

# ---------------------------------------------------------------------------
step 3 "writing a CLI configuration (TF_CLI_CONFIG_FILE) with dev_overrides -> $WORK/bin"
use_dev_build
cat "$TF_CLI_CONFIG_FILE"
echo "(no $CLI init: with dev_overrides it would ask the registry)"

cp -R "$ROOT/examples/demo" "$WORK/demo"
tf() { "$TERRAFORM" -chdir="$WORK/demo" "$@"; }

# ---------------------------------------------------------------------------
step 4 "$CLI apply (examples/demo copied to $WORK/demo)"
# The apply prints the outputs itself.
tf apply -auto-approve -no-color || die "$CLI apply failed"
policy_id="$(tf output -raw signing_policy_id)" || die "no signing_policy_id output"
[[ -n "$policy_id" ]] || die "the signing_policy_id output is empty"

# ---------------------------------------------------------------------------
step 5 "$CLI plan -detailed-exitcode: must be empty (exit 0) right after apply"
rc=0
tf plan -detailed-exitcode -no-color >"$WORK/plan-after-apply.txt" 2>&1 || rc=$?
cat "$WORK/plan-after-apply.txt"
case $rc in
0) echo "OK: no changes after apply" ;;
2) die "the plan right after apply is not empty (exit 2): the provider does not converge" ;;
*) die "$CLI plan failed (exit $rc)" ;;
esac

# ---------------------------------------------------------------------------
step 6 "replay: a month of activities, and what asking three approvers would have done to them"
# The history is written into the state file while the emulator is
# stopped (custody-emulator history), then the emulator serves it again.
kill -TERM "$EMULATOR_PID"
wait "$EMULATOR_PID" || die "the emulator did not stop cleanly"
EMULATOR_PID=""
"$WORK/custody-emulator" history -state "$WORK/emulator.state.json" -env-file "$WORK/custody-emulator.env" \
	-days 30 -per-day 20 -seed 1 2>/dev/null || die "custody-emulator history failed"
start_emulator "$WORK/emulator.state.json" \
	-env-file "$WORK/custody-emulator.env" \
	-fixtures "$ROOT/examples/emulator/fixtures.json"
# The change is planned, never applied: a copy of main.tf asks three
# approvers, and an override file turns the replay on.
cp "$WORK/demo/main.tf" "$WORK/main.tf.orig"
sed -i.bak 's/approvers.count() >= 2/approvers.count() >= 3/' "$WORK/demo/main.tf" && rm -f "$WORK/demo/main.tf.bak"
printf 'provider "custody" {\n  replay = { days = 30 }\n}\n' >"$WORK/demo/replay_override.tf"
rc=0
tf plan -detailed-exitcode -no-color >"$WORK/plan-replay.txt" 2>&1 || rc=$?
[[ $rc == 2 ]] || { cat "$WORK/plan-replay.txt"; die "the plan of three approvers failed or planned nothing (exit $rc)"; }
grep -A16 'Warning: Access change: Two approvers for signing' "$WORK/plan-replay.txt" || die "the plan has no access report for the change"
grep -qE '^Replayed [0-9,]+ activities of the last 30 days' "$WORK/plan-replay.txt" || die "the access report has no replay"
# Terraform wraps a warning's lines: the words are matched across them.
tr -s ' \n' ' ' <"$WORK/plan-replay.txt" | grep -qE '[0-9,]+ that were allowed would now need consensus' ||
	die "the replay names no transfer the change would hold for consensus"
mv "$WORK/main.tf.orig" "$WORK/demo/main.tf"
rm "$WORK/demo/replay_override.tf"
echo "OK: the replay says which of the month's transfers a third approver would have held"

# ---------------------------------------------------------------------------
step 7 "drift: renaming policy $policy_id outside $CLI; $CLI plan must show it (exit 2)"
drift_name="Renamed outside Terraform"
go run ./tools/demo-drift -name "$drift_name" "$policy_id" || die "tools/demo-drift failed"
rc=0
tf plan -detailed-exitcode -no-color >"$WORK/plan-after-drift.txt" 2>&1 || rc=$?
cat "$WORK/plan-after-drift.txt"
case $rc in
2) ;;
0) die "$CLI plan did not detect the drift (exit 0, no changes)" ;;
*) die "$CLI plan failed (exit $rc)" ;;
esac
grep -q 'custody_policy.two_approvers_for_signing will be updated in-place' "$WORK/plan-after-drift.txt" ||
	die "the plan does not update custody_policy.two_approvers_for_signing in place"
grep -qF "\"$drift_name\" -> \"Two approvers for signing\"" "$WORK/plan-after-drift.txt" ||
	die "the plan does not show the name going back from \"$drift_name\""
echo "OK: drift detected; the plan puts the policy's name back"

# ---------------------------------------------------------------------------
step 8 "drift beside the configuration: a grant made outside $CLI; $CLI plan must plan its removal (exit 2), $CLI apply reverts both drifts"
grant_name="Ops signs alone"
go run ./tools/demo-drift -grant "$grant_name" || die "tools/demo-drift -grant failed"
rc=0
tf plan -detailed-exitcode -no-color >"$WORK/plan-after-grant.txt" 2>&1 || rc=$?
cat "$WORK/plan-after-grant.txt"
case $rc in
2) ;;
0) die "$CLI plan did not see the grant made outside it (exit 0, no changes)" ;;
*) die "$CLI plan failed (exit $rc)" ;;
esac
grep -q 'custody_policies_exclusive.all will be updated in-place' "$WORK/plan-after-grant.txt" ||
	die "the plan does not update custody_policies_exclusive.all"
grep -qF "Access change: $grant_name (outside this configuration)" "$WORK/plan-after-grant.txt" ||
	die "the plan does not say what removing \"$grant_name\" takes back"
grep -qF "Control broken outside this configuration: signing never alone" "$WORK/plan-after-grant.txt" ||
	die "the plan does not say the removal mends the control"
tf apply -auto-approve -no-color || die "$CLI apply failed"
rc=0
tf plan -detailed-exitcode -no-color >"$WORK/plan-after-revert.txt" 2>&1 || rc=$?
cat "$WORK/plan-after-revert.txt"
[[ $rc == 0 ]] || die "the plan after reverting the drift is not empty (exit $rc)"
echo "OK: both drifts reverted; the organization matches the configuration again"

# ---------------------------------------------------------------------------
step 9 "$CLI destroy, then stopping the emulator"
tf destroy -auto-approve -no-color || die "$CLI destroy failed"
left="$(tf state list)" || die "$CLI state list failed"
[[ -z "$left" ]] || die "resources left in state after destroy: $left"
kill -TERM "$EMULATOR_PID"
wait "$EMULATOR_PID" || die "the emulator did not stop cleanly"
EMULATOR_PID=""

printf '\n\033[1;32mDEMO PASSED in %ss\033[0m\n' "$SECONDS"
