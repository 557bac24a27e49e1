package appserver

func registerModelMethods(s *Server) {}
