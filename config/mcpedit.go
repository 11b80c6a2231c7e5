package config

// MCPServersChange is the EditFile change that sets mcp_servers to v (co
// mcp add and remove save with it, as co schedule add saves schedules).
func MCPServersChange(v []MCPServer) Change {
	b, _ := encodeValue(v)
	return Change{Key: "mcp_servers", Value: string(b)}
}
