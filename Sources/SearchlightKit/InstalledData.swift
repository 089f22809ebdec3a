import FoundationEssentials

/// Where data installed beside Searchlight (the meaning model, the stop word lists) is looked for,
/// first match first: the folder the environment variable `variable` names, then `relative` under
/// `$XDG_DATA_HOME` (or `~/.local/share`), `/usr/local/share` and `/usr/share`. Nowhere when
/// `variable` is `none`.
func installedDataPaths(variable: String, relative: String) -> [String] {
    let environment = ProcessInfo.processInfo.environment
    var paths: [String] = []
    if let folder = environment[variable], !folder.isEmpty {
        if folder == "none" { return [] }
        paths.append(folder)
    }
    if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
        paths.append(data + "/" + relative)
    } else if let home = environment["HOME"], !home.isEmpty {
        paths.append(home + "/.local/share/" + relative)
    }
    return paths + ["/usr/local/share/" + relative, "/usr/share/" + relative]
}
