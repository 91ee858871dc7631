package host

import (
	"context"
	"errors"
	"testing"
	"time"
)

type flakyLoader struct {
	fails   int // Unload fails this many times first
	err     error
	unloads int
}

func (f *flakyLoader) Unload(ctx context.Context, m string) error {
	f.unloads++
	if f.unloads <= f.fails {
		return f.err
	}
	return nil
}

func (f *flakyLoader) Load(ctx context.Context, m string, p []string) error { return nil }

func TestUnloadRetriesWhileBusy(t *testing.T) {
	busyErr := errors.New("rmmod usb_storage: exit status 1: rmmod: can't unload module 'usb_storage': Resource temporarily unavailable")
	f := &flakyLoader{fails: 2, err: busyErr}
	h := &Host{Loader: f, Poll: time.Millisecond}
	if err := h.unload(context.Background(), "usb_storage"); err != nil {
		t.Fatalf("unload: %v", err)
	}
	if f.unloads != 3 {
		t.Errorf("unloads = %d, want 3 (two busy, one ok)", f.unloads)
	}
	other := &flakyLoader{fails: 1, err: errors.New("rmmod: module not found")}
	h = &Host{Loader: other, Poll: time.Millisecond}
	if err := h.unload(context.Background(), "x"); err == nil || other.unloads != 1 {
		t.Errorf("a non-busy error must not be retried: err %v, unloads %d", err, other.unloads)
	}
}
