package proc

// ChildrenLists says, to the tests, whether Strays follows the kernel's
// lists of children in this build (not on the portable path).
const ChildrenLists = childrenLists
