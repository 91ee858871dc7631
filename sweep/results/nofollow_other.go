//go:build !unix

package results

// oNoFollow: Windows has no O_NOFOLLOW (its symbolic links need
// privileges to make).
const oNoFollow = 0
