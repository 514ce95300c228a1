package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"time"
)

// environment is the machine and the versions a benchmark ran with, for
// the head of the report.
type environment struct {
	date, uname, cpus, cpuModel, mem, goVersion, tfVersion, commit string
	modules                                                        []string
}

func describeEnvironment(ctx context.Context, root string, t *tools) environment {
	sh := func(name string, args ...string) string {
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = root
		cmd.Env = append(cleanEnv(), "CHECKPOINT_DISABLE=1")
		out, err := cmd.Output()
		if err != nil {
			return "(" + name + ": " + err.Error() + ")"
		}
		return strings.TrimSpace(string(out))
	}
	e := environment{
		date:      time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		uname:     sh("uname", "-srm"),
		cpus:      sh("nproc"),
		goVersion: sh("go", "version"),
		tfVersion: strings.SplitN(sh(t.terraform, "version"), "\n", 2)[0],
		commit:    sh("git", "describe", "--always", "--dirty"),
	}
	e.modules = strings.Split(sh("go", "list", "-m", "github.com/hashicorp/terraform-plugin-framework",
		"github.com/hashicorp/terraform-plugin-go", "github.com/hashicorp/go-plugin"), "\n")
	e.cpuModel = procField("/proc/cpuinfo", "model name")
	e.mem = procField("/proc/meminfo", "MemTotal")
	return e
}

// procField is the value of the first "name: value" line of a /proc file.
func procField(path, name string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
