package appserver

func registerConfigMethods(s *Server) {}
