//go:build unix

package main

import "syscall"

// oNoFollow refuses a symbolic link where an output file is created.
const oNoFollow = syscall.O_NOFOLLOW
