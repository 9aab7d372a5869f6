package watchdog

// Arg is the first argument that makes tether's binary the watchdog's
// second stage ([Main]): a program whose main hands control to Main when
// started so (spawn.Init does).
const Arg = "tether-watchdog"
