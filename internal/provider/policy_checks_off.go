//go:build bench_nopolicycheck

package provider

// policyChecksEnabled is off only in the benchmark's build with the tag
// bench_nopolicycheck, which measures what the checks add to a plan. No
// release is built with it.
const policyChecksEnabled = false
