// Command peakrss runs another program and records its peak resident set
// size. The benchmark installs it under a provider's binary name in the
// dev_overrides directory, so that Terraform starts it in the provider's
// place:
//
//	PEAKRSS_EXEC  the real program to run (required)
//	PEAKRSS_OUT   file to which one line is appended when the program exits:
//	              "<peak RSS in KiB> <user CPU s> <system CPU s> <program>"
//
// Arguments, the environment, stdin, stdout and stderr pass straight
// through (go-plugin's handshake is the program's first line on stdout),
// SIGINT and SIGTERM are forwarded, and peakrss exits with the program's
// exit code. The same wrapper runs every provider in the benchmark, so all
// of them pay the same for it.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
)

func main() { os.Exit(run()) }

func run() int {
	target := os.Getenv("PEAKRSS_EXEC")
	if target == "" {
		fmt.Fprintln(os.Stderr, "peakrss: PEAKRSS_EXEC is not set")
		return 127
	}
	cmd := exec.Command(target, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = os.Environ()

	// Terraform stops plugins with a kill or an RPC; forward the polite
	// signals so the program can shut down the same way it would alone.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		return 127
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	err := cmd.Wait()
	signal.Stop(sigs)

	code := 0
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	case err != nil:
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		code = 127
	}
	if out := os.Getenv("PEAKRSS_OUT"); out != "" && cmd.ProcessState != nil {
		if werr := record(out, cmd.ProcessState, target); werr != nil {
			fmt.Fprintln(os.Stderr, "peakrss:", werr)
		}
	}
	return code
}

// record appends one line: the peak RSS in KiB (Linux reports ru_maxrss
// in KiB), then user and system CPU seconds, then the program's name.
func record(path string, ps *os.ProcessState, target string) error {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return errors.New("no rusage for the child process")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%d %.3f %.3f %s\n", ru.Maxrss, ps.UserTime().Seconds(), ps.SystemTime().Seconds(), filepath.Base(target))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
