# Installs quire.exe on Windows: downloads the windows-x64 build from the release location,
# checks its SHA-256 against SHA256SUMS, runs `quire --version`, then moves it into place.
#
#   $env:QUIRE_RELEASE_URL = "https://…"; .\install.ps1 [-Version v1.2.3] [-Prefix DIR]
#
# The default prefix is %LOCALAPPDATA%\Programs\quire (no administrator rights needed); the
# folder is added to the user's PATH. Nothing is replaced unless every check passes.
param(
  [string]$Version = "",
  [string]$Prefix = (Join-Path $env:LOCALAPPDATA "Programs\quire")
)
$ErrorActionPreference = "Stop"
Set-StrictMode -Version 3

# Filled in by `bun run release` when the release location is known.
$DefaultReleaseUrl = ""

$releaseUrl = if ($env:QUIRE_RELEASE_URL) { $env:QUIRE_RELEASE_URL } else { $DefaultReleaseUrl }
if (-not $releaseUrl) { throw "install.ps1: set QUIRE_RELEASE_URL to the release location" }
$releaseUrl = $releaseUrl.TrimEnd("/")

if ($env:PROCESSOR_ARCHITECTURE -ne "AMD64") {
  throw "install.ps1: there is a Windows build for x64 only (this machine: $env:PROCESSOR_ARCHITECTURE)"
}

$folder = "latest"
if ($Version) {
  if (-not $Version.StartsWith("v")) { $Version = "v$Version" }
  if ($Version -notmatch '^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$') { throw "install.ps1: -Version must look like v1.2.3, not $Version" }
  $folder = $Version
} else {
  $manifest = Invoke-RestMethod -Uri "$releaseUrl/latest/manifest.json"
  $Version = [string]$manifest.version
  if ($Version -notmatch '^v\d+\.\d+\.\d+') { throw "install.ps1: $releaseUrl/latest/manifest.json names no version" }
}

$name = "quire-$($Version.Substring(1))-windows-x64.exe"
New-Item -ItemType Directory -Force -Path $Prefix | Out-Null
$tmp = Join-Path $Prefix ".quire.install.$PID.exe"
$target = Join-Path $Prefix "quire.exe"
try {
  Write-Host "Downloading $releaseUrl/$folder/$name"
  Invoke-WebRequest -UseBasicParsing -Uri "$releaseUrl/$folder/$name" -OutFile $tmp
  $sums = (Invoke-WebRequest -UseBasicParsing -Uri "$releaseUrl/$folder/SHA256SUMS").Content
  if ($sums -is [byte[]]) { $sums = [Text.Encoding]::UTF8.GetString($sums) }
  $want = $null
  foreach ($line in $sums -split "`n") {
    $parts = $line.Trim() -split '\s+\*?', 2
    if ($parts.Count -eq 2 -and $parts[1] -eq $name) { $want = $parts[0].ToLowerInvariant() }
  }
  if (-not $want) { throw "install.ps1: SHA256SUMS does not list $name (a checksum file of another version?); nothing was changed" }
  $got = (Get-FileHash -Algorithm SHA256 -Path $tmp).Hash.ToLowerInvariant()
  if ($got -ne $want) { throw "install.ps1: checksum mismatch for ${name}: SHA256SUMS says $want, the download is $got; nothing was changed" }
  Write-Host "Checksum verified: $got"

  $said = (& $tmp --version 2>&1 | Out-String).Trim()
  if ($LASTEXITCODE -ne 0 -or $said -ne "quire $Version") { throw "install.ps1: the download does not run as quire $Version (it said: $said); nothing was changed" }

  # A running quire.exe cannot be overwritten or deleted on Windows, but it can be renamed: the old
  # one steps aside as quire.exe.old (removed on the next install) and the new one takes its name.
  $old = "$target.old"
  if (Test-Path $old) { Remove-Item -Force $old -ErrorAction SilentlyContinue }
  if (Test-Path $target) { Move-Item -Force $target $old }
  Move-Item -Force $tmp $target
  Write-Host "Installed $said to $target"
} finally {
  if (Test-Path $tmp) { Remove-Item -Force $tmp }
}

$userPath = [Environment]::GetEnvironmentVariable("Path", "User")
if (($userPath -split ";") -notcontains $Prefix) {
  [Environment]::SetEnvironmentVariable("Path", (($userPath, $Prefix) -join ";").Trim(";"), "User")
  Write-Host "Added $Prefix to your PATH (open a new terminal to use it)"
}
