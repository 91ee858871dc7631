// Command citune tunes the ChipIdea/EHCI USB controller of NXP i.MX6 and
// Vybrid SoCs: it decodes and edits the controller's registers safely,
// measures throughput, sweeps settings and prints the device-tree
// properties and kernel parameters that make the best ones permanent.
//
// Run `citune help` for the commands.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(Main())
}

// Main runs citune with the process's arguments and returns its exit code.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	return run(ctx, os.Args[1:], newEnv())
}
