package undo

// Fuzz targets for what undo reads from files others may have touched:
// the journal, the lock (owner) files and /proc/PID/stat.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func FuzzParseJournal(f *testing.F) {
	f.Add([]byte(`{"version":2,"seq":3,"entries":[{"target":{"kind":"devmem","base":35144192},"profile":"imx6q","controller":"usbh1","sessions":[{"kind":"sweep","pid":1,"start":2,"since":"2026-12-01T10:00:00Z"}],"fields":[{"register":"USBCMD","offset":320,"field":"ITC","mask":16711680,"original":524288,"written":4194304}],"files":[{"path":"/sys/x","original":"1"}],"modparams":[{"name":"m.p","original":"0"}]}]}`))
	f.Add([]byte(`{"version":1,"entries":[{"kind":"file","path":"/nonexistent","registers":[{"name":"USBCMD","offset":320,"original":1,"written":3}],"command":["citune","sweep"]}]}`))
	f.Add([]byte(`{"version":9}`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, b []byte) {
		j, err := parseJournal("journal.json", b)
		if err != nil {
			if j != nil {
				t.Fatalf("a journal and an error: %v", err)
			}
			return
		}
		// What was read is saved and read back the same.
		out, err := json.Marshal(j)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		if j.Version == 0 {
			return // "null"-like input that decodes to nothing
		}
		j2, err := parseJournal("journal.json", out)
		if err != nil {
			t.Fatalf("reading back %s: %v", out, err)
		}
		if len(j2.Entries) != len(j.Entries) {
			t.Fatalf("entries %d, read back %d", len(j.Entries), len(j2.Entries))
		}
		for i := range j.Entries {
			if j.Find(j.Entries[i].Target.Key()) == nil {
				t.Fatalf("entry %d not found by its key", i)
			}
			j.Entries[i].Interrupted()
			for _, fr := range j.Entries[i].Fields {
				_ = fr.Name()
			}
		}
	})
}

func FuzzParseHolder(f *testing.F) {
	f.Add([]byte(`{"kind":"sweep","pid":123,"start":456,"boot":"b","command":["citune","sweep"],"since":"2026-12-01T10:00:00Z"}`))
	f.Add([]byte(`{"kind":"sweep","pid":123,"entry":{"target":{"kind":"file","dev":1,"ino":2,"path":"/x"},"fields":[{"register":"SBUSCFG","offset":144,"mask":7,"original":2}]}}`))
	f.Add([]byte(`{"pid":-1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, ok := parseHolder(b)
		if !ok {
			return
		}
		if h.PID <= 0 {
			t.Fatalf("owner with pid %d accepted", h.PID)
		}
		_ = h.Owner.String()
		if h.Entry != nil {
			_ = h.Entry.Target.Key()
		}
	})
}

// The start time is field 22 whatever the command name holds (spaces,
// parentheses, newlines): fields are counted after its last ')'.
func FuzzParseStat(f *testing.F) {
	f.Add("citune", uint64(83243))
	f.Add("a) (b", uint64(1))
	f.Add("x y\nz", uint64(1<<63))
	f.Fuzz(func(t *testing.T, comm string, start uint64) {
		var rest []string
		for i := 3; i <= 21; i++ {
			rest = append(rest, fmt.Sprint(i))
		}
		line := fmt.Sprintf("4242 (%s) %s %d 23 24\n", comm, strings.Join(rest, " "), start)
		got, err := parseStat(line)
		if err != nil || got != start {
			t.Fatalf("parseStat(%q) = %d, %v; want %d", line, got, err, start)
		}
		// Arbitrary text never panics.
		parseStat(comm)
	})
}

func FuzzFlockHolder(f *testing.F) {
	id := TargetID{Kind: TargetFile, Dev: 0xfd01, Ino: 5678}
	f.Add("1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF\n2: POSIX  ADVISORY  READ 99 fd:01:5678 0 EOF\n")
	f.Add("1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF\n1: -> FLOCK  ADVISORY  WRITE 77 fd:01:5678 0 EOF\n")
	f.Add("3: OFDLCK ADVISORY  WRITE -1 08:02:1 0 EOF\n")
	f.Fuzz(func(t *testing.T, s string) {
		pid := flockHolder(s, id)
		if pid < 0 || pid > 0 && !strings.Contains(s, fmt.Sprint(pid)) {
			t.Fatalf("pid %d from %q", pid, s)
		}
	})
}

func TestFlockHolder(t *testing.T) {
	id := TargetID{Kind: TargetFile, Dev: 0xfd01, Ino: 5678}
	locks := "1: POSIX  ADVISORY  WRITE 99 fd:01:5678 0 EOF\n2: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF\n2: -> FLOCK  ADVISORY  WRITE 77 fd:01:5678 0 EOF\n3: FLOCK  ADVISORY  WRITE 55 fd:01:5679 0 EOF\n"
	if got := flockHolder(locks, id); got != 1234 {
		t.Errorf("holder %d, want 1234", got)
	}
	if got := flockHolder(locks, DevMem(1)); got != 0 {
		t.Errorf("devmem holder %d", got)
	}
}
