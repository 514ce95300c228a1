#!/usr/bin/env bash
# make drill-lost-answers: the lost-answer drill of docs/index.md ("When an
# answer is lost"), with the real binaries, as a new user would run it.
#
# It builds the provider and the emulator, starts the emulator with
# -fault-drop-rate (it commits, then drops the connection), and applies N
# policies with max_retries = 1, so that some creates lose the answer of
# both attempts. It then restarts the emulator on its state without faults
# and applies again, and checks that the organization holds exactly N
# policies, that the next plan is empty, and that destroy leaves none. It
# prints the figures. DRILL_N (200), DRILL_DROP_RATE (0.3) and DRILL_SEED
# (7) change the run.
#
# DRILL_LIVENESS_WINDOW (say 200ms) is the stale-retry variant: the first
# emulator refuses a timestamp older than that, shorter than the retry
# backoff, as a long outage is against the service's real window, so the
# retry of a committed create may be refused as stale (a 400); the backoff
# has jitter, so -fault-stale-retry-rate 1 refuses the other retries of a
# committed body too. That refusal proves nothing of the first attempt, and
# the organization must still end with exactly N policies.
# CUSTODY_BATCHING_ENABLED=false runs either variant with batching off, and
# true with every create batched (unset, the root user's creates, which need
# no approval, go alone).
set -euo pipefail

N="${DRILL_N:-200}"
DROP_RATE="${DRILL_DROP_RATE:-0.3}"
SEED="${DRILL_SEED:-7}"
LIVENESS="${DRILL_LIVENESS_WINDOW:-}"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
die() {
	printf '\nDRILL FAILED: %s\n' "$*" >&2
	exit 1
}
for tool in go terraform; do
	command -v "$tool" >/dev/null || die "$tool not found on PATH"
done

# shellcheck source=scripts/lib/emulator.sh
source "$ROOT/scripts/lib/emulator.sh"
make_work drill
build_binaries
use_dev_build
mkdir -p "$WORK/config" "$WORK/count"
cat >"$WORK/config/main.tf" <<EOF
terraform {
  required_providers {
    custody = { source = "custody-labs/custody" }
  }
}

provider "custody" {
  max_retries = 1
}

resource "custody_policy" "p" {
  count     = $N
  name      = "drill \${count.index}"
  effect    = "EFFECT_DENY"
  condition = "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD'"
}
EOF
cat >"$WORK/count/main.tf" <<'EOF'
terraform {
  required_providers {
    custody = { source = "custody-labs/custody" }
  }
}

data "custody_policies" "all" {}

output "policies" {
  value = length(data.custody_policies.all.policies)
}
EOF
tf() { terraform -chdir="$WORK/config" "$@" -no-color; }
held() {
	terraform -chdir="$WORK/count" apply -auto-approve -no-color >/dev/null || die "counting the policies failed"
	terraform -chdir="$WORK/count" output -raw policies
}

faults=(-fault-drop-rate "$DROP_RATE" -fault-seed "$SEED")
[[ -z "$LIVENESS" ]] || faults+=(-liveness-window "$LIVENESS" -fault-stale-retry-rate 1)
start_emulator "$WORK/state.json" "${faults[@]}"
echo "1. apply of $N policies, max_retries = 1, batching ${CUSTODY_BATCHING_ENABLED:-by default}, emulator ${faults[*]}"
rc=0
tf apply -auto-approve -parallelism=10 >"$WORK/apply1.txt" 2>&1 || rc=$?
lost="$(grep -c '"id": "unresolved-create-' "$WORK/config/terraform.tfstate" || true)"
failed="$(grep -c '^Error: Error creating policy' "$WORK/apply1.txt" || true)"
echo "   exit $rc; $failed creates failed, $lost saved as placeholders"
((rc != 0 && lost > 0)) || die "the faults lost no answer (exit $rc): the drill proved nothing"
if [[ -n "$LIVENESS" ]]; then
	# A lost create's error quotes the service's last answer, which for a
	# retry refused as stale says so.
	# Terraform wraps the text: join it first.
	stale="$(tr -s '\n ' '  ' <"$WORK/apply1.txt" | grep -o 'outside the liveness window' | wc -l)"
	echo "   the errors mention a retry refused as stale $stale times"
	((stale > 0)) || die "no request was refused as stale: the stale-retry variant proved nothing"
fi

stop_emulator
LISTEN="${CUSTODY_BASE_URL#http://}" start_emulator "$WORK/state.json"
echo "2. the emulator restarted on its state without faults; the organization holds $(held) policies"

rc=0
tf apply -auto-approve >"$WORK/apply2.txt" 2>&1 || rc=$?
((rc == 0)) || die "the second apply failed: $(tail -n 20 "$WORK/apply2.txt")"
grep '^Apply complete' "$WORK/apply2.txt" | sed 's/^/   /'
count="$(held)"
echo "3. after the second apply the organization holds $count policies (want $N)"
[[ "$count" == "$N" ]] || die "the organization holds $count policies, want $N"

rc=0
tf plan -detailed-exitcode >"$WORK/plan.txt" 2>&1 || rc=$?
echo "4. plan -detailed-exitcode: exit $rc (0: no changes)"
((rc == 0)) || die "the plan after the second apply is not empty: $(tail -n 20 "$WORK/plan.txt")"

tf destroy -auto-approve >"$WORK/destroy.txt" 2>&1 || die "destroy failed: $(tail -n 20 "$WORK/destroy.txt")"
count="$(held)"
echo "5. after destroy the organization holds $count policies"
[[ "$count" == "0" ]] || die "destroy left $count policies"
echo "OK"
