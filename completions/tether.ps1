# PowerShell completion for tether
# Install: tether completion powershell | Out-String | Invoke-Expression   (in $PROFILE)
Register-ArgumentCompleter -Native -CommandName tether -ScriptBlock {
	param($wordToComplete, $commandAst, $cursorPosition)
	$line = $commandAst.ToString()
	if ($line.Length -gt $cursorPosition) { $line = $line.Substring(0, $cursorPosition) }
	$words = @($line -split '\s+' | Where-Object { $_ -ne '' } | Select-Object -Skip 1)
	# The command's own words: never ask tether, which would run it.
	if ($words -contains '--') { return }
	if ($wordToComplete -ne '' -and $words.Count -gt 0) {
		if (-not $wordToComplete.StartsWith('-')) { $words = @($words | Select-Object -SkipLast 1) }
	}
	& tether @words --generate-bash-completion 2>$null | ForEach-Object {
		if ($_ -like "$wordToComplete*") {
			[System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)
		}
	}
}
