package appserver

func registerCommandMethods(s *Server) {}
