//go:build linux && tetherportable

package ptree

// childrenLists says that the kernel's lists of children are not
// followed (the portable path takes macOS's way): Strays scans every
// process.
const childrenLists = false
