package appserver

func registerFSMethods(s *Server) {}
