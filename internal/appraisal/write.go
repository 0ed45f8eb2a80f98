package appraisal

import (
	"github.com/everycycle/appraise/internal/rundir"
)

// ErrExists: --out holds an earlier run and overwrite was not asked for.
var ErrExists = rundir.ErrExists

// ErrUnusableOut is returned when --out cannot receive a run.
var ErrUnusableOut = rundir.ErrUnusable

// File is one report file to write.
type File struct {
	// Name is the base name, e.g. "card-0000-01-00.0.appraisal.json".
	Name string
	// Data is the whole file.
	Data []byte
}

// CheckOut says whether WriteAll could put a run into dir.
func CheckOut(dir string, overwrite bool) error {
	return rundir.Check(dir, overwrite)
}

// WriteAll writes every file into dir or none; overwrite replaces a run whole.
func WriteAll(dir string, files []File, overwrite bool) error {
	rf := make([]rundir.File, len(files))
	for i, f := range files {
		rf[i] = rundir.File{Name: f.Name, Data: f.Data}
	}
	return rundir.Write(dir, rf, overwrite)
}
