// Command profiled is the custody provider as main.go builds it, plus a CPU
// profile: with BENCH_CPUPROFILE_DIR set, each provider process writes
// <dir>/provider-<pid>.pprof when Terraform stops it. `go run ./bench/runner
// -profile DIR` runs it in place of the provider to say where a missed
// target's time goes; its timings are not the benchmark's.
package main

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime/pprof"

	"github.com/custody-labs/terraform-provider-custody/internal/provider"
)

func main() {
	if dir := os.Getenv("BENCH_CPUPROFILE_DIR"); dir != "" {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("provider-%d.pprof", os.Getpid())))
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer func() {
			pprof.StopCPUProfile()
			_ = f.Close()
		}()
	}
	if err := provider.Serve("bench", false); err != nil {
		log.Print(err.Error())
	}
}
