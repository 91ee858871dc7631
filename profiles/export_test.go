package profiles

// For profiles_test (packed_test.go), which imports soc.

var Update = update

// SetPacked replaces the packed archive until restore is called.
func SetPacked(a string) (restore func()) {
	old := packed
	packed = a
	return func() { packed = old }
}
