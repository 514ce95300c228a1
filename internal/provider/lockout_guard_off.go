//go:build bench_nolockoutguard

package provider

// lockoutGuardEnabled is off only in the benchmark's build with the tag
// bench_nolockoutguard, which measures what the lockout guard adds to a
// plan. No release is built with it.
const lockoutGuardEnabled = false
