package probe

import (
	"hash/crc32"
	"strings"
	"time"
)

// sampler keeps the sample check's running CRC over the bytes at
// offsets [k*SampleStride, k*SampleStride+SampleBytes), with a mark at
// every block.
type sampler struct {
	crc   uint32
	marks []uint32
	cpu   time.Duration
}

// add takes the block b read at offset off.
func (s *sampler) add(b []byte, off int64) {
	t0 := time.Now()
	end := off + int64(len(b))
	k := (off + SampleStride - 1) / SampleStride * SampleStride
	if prev := k - SampleStride; prev >= 0 && prev+SampleBytes > off { // its rest
		s.crc = crc32.Update(s.crc, crc32.IEEETable, b[:min(prev+SampleBytes, end)-off])
	}
	for ; k < end; k += SampleStride {
		s.crc = crc32.Update(s.crc, crc32.IEEETable, b[k-off:min(k+SampleBytes, end)-off])
	}
	if len(s.marks) < maxMarks {
		s.marks = append(s.marks, s.crc)
	}
	s.cpu += time.Since(t0)
}

// normHash accepts "crc32:1A2B3C4D", "1a2b3c4d" or "0x1a2b3c4d".
func normHash(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimPrefix(s, "crc32:")
	s = strings.TrimPrefix(s, "0x")
	return "crc32:" + strings.Repeat("0", max(8-len(s), 0)) + s
}

// hasher hashes filled buffers in a goroutine of its own while the next
// buffer is read into, and keeps the running CRC at every block.
type hasher struct {
	free  chan []byte
	full  chan chunk
	done  chan struct{}
	crc   uint32
	marks []uint32
	cpu   time.Duration // time spent hashing
	only  []byte        // the one buffer when nothing is hashed
}

type chunk struct {
	b []byte
	n int64 // bytes to hash; 0 only returns the buffer
}

// newHasher hashes into bufs when on, with room for marks block marks.
func newHasher(bufs []*alignedBuf, on bool, marks int) *hasher {
	h := &hasher{free: make(chan []byte, len(bufs)), full: make(chan chunk, len(bufs)), done: make(chan struct{})}
	for _, b := range bufs {
		h.free <- b.b
	}
	if !on {
		h.full, h.only = nil, bufs[0].b // no goroutine, no channel
		return h
	}
	h.marks = make([]uint32, 0, marks)
	go func() {
		defer close(h.done)
		for c := range h.full {
			if c.n > 0 {
				t0 := time.Now()
				h.crc = crc32.Update(h.crc, crc32.IEEETable, c.b[:c.n])
				h.cpu += time.Since(t0)
				if len(h.marks) < maxMarks {
					h.marks = append(h.marks, h.crc)
				}
			}
			h.free <- c.b
		}
	}()
	return h
}

func (h *hasher) next() []byte {
	if h.only != nil {
		return h.only
	}
	return <-h.free
}

// put hands over n bytes read into b (0: only returns it).
func (h *hasher) put(b []byte, n int64) {
	if h.full == nil {
		return
	}
	h.full <- chunk{b, n}
}

// wait hashes what is left and returns the CRC, the block marks and the
// time spent hashing.
func (h *hasher) wait() (uint32, []uint32, time.Duration) {
	if h.full == nil {
		return 0, nil, 0
	}
	close(h.full)
	<-h.done
	return h.crc, h.marks, h.cpu
}
