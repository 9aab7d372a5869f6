# fish completion for tether: tether completion fish > ~/.config/fish/completions/tether.fish
# tether fish shell completion

function __fish_tether_no_subcommand --description 'Test if there has been any subcommand yet'
    for i in (commandline -opc)
        if contains -- $i run check reclaim ps completion help h
            return 1
        end
    end
    return 0
end

complete -c tether -n '__fish_tether_no_subcommand' -f -l help -s h -d 'show help'
complete -c tether -n '__fish_tether_no_subcommand' -f -l version -s v -d 'print the version'
complete -c tether -n '__fish_tether_no_subcommand' -f -l help -s h -d 'show help'
complete -c tether -n '__fish_tether_no_subcommand' -f -l version -s v -d 'print the version'
complete -c tether -n '__fish_seen_subcommand_from run' -f -l help -s h -d 'show help'
complete -r -c tether -n '__fish_tether_no_subcommand' -a 'run' -d 'run COMMAND tied to tether\'s life, stamped, in its own process group'
complete -c tether -n '__fish_seen_subcommand_from run' -f -l name -r -d 'stamp the name `NAME` (default: the command\'s base name)'
complete -c tether -n '__fish_seen_subcommand_from run' -f -l signal -r -d 'the parent-death `SIGNAL` the command gets when tether dies'
complete -c tether -n '__fish_seen_subcommand_from run' -f -l grace -r -d 'how long the tree gets between TERM and KILL at cleanup'
complete -c tether -n '__fish_seen_subcommand_from run' -f -l outlive-parent -d 'keep running when tether\'s own parent (the shell, make) dies'
complete -c tether -n '__fish_seen_subcommand_from run' -f -l exec -d 'no supervisor: arm the parent-death signal on tether and exec COMMAND in place'
complete -c tether -n '__fish_seen_subcommand_from run' -f -l port -r -d 'first free `PORT`: reclaim a stranded tethered holder, refuse any other (repeatable)'
complete -c tether -n '__fish_seen_subcommand_from run' -f -l marker-var -r -d 'the marker variable, which must hold `KEY`=1'
complete -c tether -n '__fish_seen_subcommand_from run' -f -l name-var -r -d 'the variable that holds the name (`KEY`)'
complete -c tether -n '__fish_seen_subcommand_from check' -f -l help -s h -d 'show help'
complete -r -c tether -n '__fish_tether_no_subcommand' -a 'check' -d 'tell whether PID is a tethered process, and whether it is supervised or stranded'
complete -c tether -n '__fish_seen_subcommand_from check' -f -l name -r -d 'require the exact name `NAME`'
complete -c tether -n '__fish_seen_subcommand_from check' -f -l json -d 'print the report as one JSON object'
complete -c tether -n '__fish_seen_subcommand_from check' -f -l marker-var -r -d 'the marker variable, which must hold `KEY`=1'
complete -c tether -n '__fish_seen_subcommand_from check' -f -l name-var -r -d 'the variable that holds the name (`KEY`)'
complete -c tether -n '__fish_seen_subcommand_from reclaim' -f -l help -s h -d 'show help'
complete -r -c tether -n '__fish_tether_no_subcommand' -a 'reclaim' -d 'find stranded tethered processes, verify each one, terminate it'
complete -c tether -n '__fish_seen_subcommand_from reclaim' -f -l all -d 'include supervised processes, whose supervisor is alive'
complete -c tether -n '__fish_seen_subcommand_from reclaim' -f -l signal -r -d 'the first `SIGNAL` sent'
complete -c tether -n '__fish_seen_subcommand_from reclaim' -f -l grace -r -d 'how long a process gets between the signal and KILL'
complete -c tether -n '__fish_seen_subcommand_from reclaim' -f -l dry-run -d 'signal nothing; print what would be done'
complete -c tether -n '__fish_seen_subcommand_from reclaim' -f -l name -r -d 'only processes named `NAME`'
complete -c tether -n '__fish_seen_subcommand_from reclaim' -f -l port -r -d 'only the holders of `PORT` (TCP listening or UDP bound; repeatable)'
complete -c tether -n '__fish_seen_subcommand_from reclaim' -f -l run-id -r -d 'only the run `ID` (32 hex digits)'
complete -c tether -n '__fish_seen_subcommand_from reclaim' -f -l any-user -d 'include other users\' processes (default: only yours)'
complete -c tether -n '__fish_seen_subcommand_from reclaim' -f -l json -d 'print JSON'
complete -c tether -n '__fish_seen_subcommand_from reclaim' -f -l marker-var -r -d 'the marker variable, which must hold `KEY`=1'
complete -c tether -n '__fish_seen_subcommand_from reclaim' -f -l name-var -r -d 'the variable that holds the name (`KEY`)'
complete -c tether -n '__fish_seen_subcommand_from ps' -f -l help -s h -d 'show help'
complete -r -c tether -n '__fish_tether_no_subcommand' -a 'ps' -d 'list tethered processes: supervised and stranded'
complete -c tether -n '__fish_seen_subcommand_from ps' -f -l name -r -d 'only processes named `NAME`'
complete -c tether -n '__fish_seen_subcommand_from ps' -f -l port -r -d 'only the holders of `PORT` (TCP listening or UDP bound; repeatable)'
complete -c tether -n '__fish_seen_subcommand_from ps' -f -l run-id -r -d 'only the run `ID` (32 hex digits)'
complete -c tether -n '__fish_seen_subcommand_from ps' -f -l any-user -d 'include other users\' processes (default: only yours)'
complete -c tether -n '__fish_seen_subcommand_from ps' -f -l json -d 'print JSON'
complete -c tether -n '__fish_seen_subcommand_from ps' -f -l marker-var -r -d 'the marker variable, which must hold `KEY`=1'
complete -c tether -n '__fish_seen_subcommand_from ps' -f -l name-var -r -d 'the variable that holds the name (`KEY`)'
complete -c tether -n '__fish_seen_subcommand_from completion' -f -l help -s h -d 'show help'
complete -r -c tether -n '__fish_tether_no_subcommand' -a 'completion' -d 'print the shell completion script for SHELL: bash, fish, powershell, zsh'
complete -c tether -n '__fish_seen_subcommand_from completion' -f -l help -s h -d 'show help'
complete -c tether -n '__fish_seen_subcommand_from help h' -f -l help -s h -d 'show help'
complete -r -c tether -n '__fish_tether_no_subcommand' -a 'help h' -d 'Shows a list of commands or help for one command'
