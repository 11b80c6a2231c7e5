package pdftext

// SetMaxWork lowers the decoding budget for a test, restoring it after.
func SetMaxWork(n int) (restore func()) {
	old := maxWork
	maxWork = n
	return func() { maxWork = old }
}
