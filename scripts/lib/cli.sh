# shellcheck shell=bash
# first_cli_on_path prints the path of the first terraform or tofu on PATH,
# in PATH's order: the CLI a user who put OpenTofu (or a newer Terraform)
# first on PATH means to run, even with another CLI further down. Within
# one directory terraform comes before tofu. It prints nothing, and
# fails, when there is neither.
first_cli_on_path() {
	local dir name
	local IFS=:
	for dir in $PATH; do
		for name in terraform tofu; do
			if [[ -n "$dir" && -f "$dir/$name" && -x "$dir/$name" ]]; then
				printf '%s\n' "$dir/$name"
				return 0
			fi
		done
	done
	return 1
}
