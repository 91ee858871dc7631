package sweep

import (
	"io"
	"os"

	"github.com/citune/citune/sweep/results"
)

// OpenOut opens the results file at path as the runner's Out: a new file
// (results.CreateFile refuses one that holds measurements) or, when the
// runner resumes (Resume is set), the resumed file for appending
// (results.OpenAppend). The caller closes it after Run. The one place
// that decides how a sweep's results file is opened, for `citune sweep`
// and the TUI alike.
func (r *Config) OpenOut(path string) (io.Closer, error) {
	var f *os.File
	var err error
	if r.Resume != nil {
		f, err = results.OpenAppend(path)
	} else {
		f, err = results.CreateFile(path)
	}
	if err != nil {
		return nil, err
	}
	r.Out = results.NewWriter(f)
	return f, nil
}
