# shellcheck shell=bash
# The start-up that scripts/demo.sh and scripts/lost-answer-drill.sh share:
# a temporary directory cleaned up however the script ends, the provider and
# custody-emulator built into it, the emulator started and its credentials
# exported, and a Terraform CLI configuration whose dev_overrides point at
# the fresh build. Sourced, after the script has defined die.

# make_work NAME creates WORK, a temporary directory named after NAME, and
# sets the traps that stop the emulator and remove WORK on exit. It exports
# what keeps Terraform from asking the network or the terminal.
make_work() {
	WORK="$(mktemp -d "${TMPDIR:-/tmp}/custody-$1.XXXXXX")"
	EMULATOR_PID=""
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	export CHECKPOINT_DISABLE=1 # no version check against the network
	export TF_IN_AUTOMATION=1 TF_INPUT=0
}

# cleanup, the EXIT trap: it stops the emulator, shows the end of its
# stderr when the script failed, and removes WORK.
cleanup() {
	local rc=$?
	stop_emulator
	if [[ $rc -ne 0 && -s "$WORK/emulator.stderr" ]]; then
		echo "--- emulator stderr (last 20 lines) ---" >&2
		tail -n 20 "$WORK/emulator.stderr" >&2 || true
	fi
	rm -rf "$WORK"
	exit "$rc"
}

# build_binaries builds the provider into $WORK/bin and the emulator into
# $WORK/custody-emulator.
build_binaries() {
	go build -o "$WORK/bin/terraform-provider-custody" .
	go build -o "$WORK/custody-emulator" ./cmd/custody-emulator
}

# start_emulator STATE [FLAG...] starts the emulator on the state file STATE
# with the flags given, listening on LISTEN (default 127.0.0.1:0), and
# exports the address and credentials its export line gives.
start_emulator() {
	local state=$1
	shift
	: >"$WORK/emulator.stdout"
	"$WORK/custody-emulator" -listen "${LISTEN:-127.0.0.1:0}" -state "$state" "$@" \
		>"$WORK/emulator.stdout" 2>"$WORK/emulator.stderr" &
	EMULATOR_PID=$!
	local line="" timeout=30 deadline
	deadline=$((SECONDS + timeout))
	until line="$(grep -m1 '^export CUSTODY_BASE_URL=' "$WORK/emulator.stdout")"; do
		kill -0 "$EMULATOR_PID" 2>/dev/null ||
			die "the emulator exited before printing its export line (see its stderr below)"
		((SECONDS < deadline)) ||
			die "the emulator printed no 'export CUSTODY_BASE_URL=...' line within ${timeout}s"
		sleep 0.1
	done
	# Only eval a line of the expected shape: export NAME=value ... with no
	# shell syntax in the values.
	[[ "$line" =~ ^export(\ CUSTODY_[A-Z0-9_]+=[A-Za-z0-9:/._-]+)+$ ]] ||
		die "unexpected export line from the emulator: $line"
	eval "$line"
	local v
	for v in CUSTODY_BASE_URL CUSTODY_ORGANIZATION_ID CUSTODY_API_PUBLIC_KEY CUSTODY_API_PRIVATE_KEY; do
		[[ -n "${!v:-}" ]] || die "the emulator's export line does not set $v"
	done
}

# stop_emulator stops the emulator, if it runs, and waits for it.
stop_emulator() {
	if [[ -n "$EMULATOR_PID" ]] && kill -0 "$EMULATOR_PID" 2>/dev/null; then
		kill -TERM "$EMULATOR_PID" 2>/dev/null || true
		wait "$EMULATOR_PID" 2>/dev/null || true
	fi
	EMULATOR_PID=""
}

# use_dev_build writes a Terraform CLI configuration whose dev_overrides
# (at Terraform's and at OpenTofu's registry address) point at $WORK/bin,
# and exports TF_CLI_CONFIG_FILE. No init then: it would ask the registry.
use_dev_build() {
	export TF_CLI_CONFIG_FILE="$WORK/terraformrc"
	cat >"$TF_CLI_CONFIG_FILE" <<EOF
provider_installation {
  dev_overrides {
    "registry.terraform.io/custody-labs/custody" = "$WORK/bin"
    "registry.opentofu.org/custody-labs/custody" = "$WORK/bin"
  }
  direct {}
}
EOF
}
