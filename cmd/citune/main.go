// Command citune tunes the ChipIdea/EHCI USB controller of NXP i.MX6 and
// Vybrid SoCs: it decodes and edits the controller's registers safely,
// measures throughput, sweeps settings and prints the device-tree
// properties and kernel parameters that make the best ones permanent.
//
// Run `citune help` for the commands.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	os.Exit(Main())
}

// Stop signals. Every one of them ends in a restore: SIGINT (Ctrl-C),
// SIGTERM, SIGHUP (a closed terminal or dropped ssh session), SIGQUIT
// (Ctrl-\, which would otherwise dump goroutines and leave registers
// changed) and SIGPIPE (the reader of stdout or stderr went away: `|
// head`, a killed tee; with SIGPIPE caught, writes to the closed pipe
// return EPIPE instead of killing the process).
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE}

// Grace periods of the signal path: for the command to stop and restore
// by itself, then to finish its records after the halt.
var (
	haltGrace = time.Second
	exitGrace = 3 * time.Second
)

// signalError is the cause of a context cancelled by a signal.
type signalError struct{ sig os.Signal }

func (e signalError) Error() string {
	if e.sig == syscall.SIGPIPE {
		return "output closed (SIGPIPE)"
	}
	return e.sig.String()
}

// Main runs citune with the process's arguments and returns its exit code.
//
// The first stop signal cancels the command's context: it stops, restores
// and returns. Further signals are ignored, so a second Ctrl-C does not
// cut a restore short. A command still running after haltGrace (a probe
// read stuck in the kernel, which no context interrupts) has its
// registered undo sessions halted from here, restoring the registers, and
// the process exits without waiting for it.
func Main() int {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, stopSignals...)
	defer signal.Stop(sigs)
	return supervise(os.Args[1:], newEnv(), sigs)
}

// supervise runs the command and handles stop signals arriving on sigs.
func supervise(args []string, e *env, sigs <-chan os.Signal) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, e) }()
	var haltC, exitC <-chan time.Time
	for {
		select {
		case code := <-done:
			return code
		case s := <-sigs:
			if ctx.Err() == nil {
				cancel(signalError{s})
				haltC = time.After(haltGrace)
			}
		case <-haltC:
			haltC = nil
			if err := haltAll(); err != nil {
				fmt.Fprintf(e.stderr, "citune: restoring after %v: %v (run `citune restore`)\n", context.Cause(ctx), err)
			} else {
				fmt.Fprintf(e.stderr, "citune: %v: the original settings were restored (the command did not stop in time)\n", context.Cause(ctx))
			}
			exitC = time.After(exitGrace)
		case <-exitC:
			fmt.Fprintf(e.stderr, "citune: exiting without waiting for a stuck operation (a read blocked in the kernel?)\n")
			return exitError
		}
	}
}
