// Package archtest holds no code: its test reads the repository's Go files and holds them to the
// layout of the design (which package may import which), and to the size limits that keep them
// readable (files of at most 900 lines, functions of at most 100).
package archtest
